"""Bulk Data ``$bulk-publish``: the whole directory's manifest, open to anonymous clients,
regenerated after each load and update (the publication record), its files those of an export
of every type; the files of a superseded publication served until their export expires."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime

import orjson
from elasticsearch import AsyncElasticsearch
from yarl import URL

from core.publication import PUBLICATION_ID, Publication
from service.fhir.export import store as export_store
from tests.conftest import ApiClient, SampleCopy, Serve, settings_for
from tests.plan_net_rows import resources
from tests.service.fhir.conftest import PLAN_NET_NAME

MANIFEST_TYPE = "http://hl7.org/fhir/uv/bulkdata/StructureDefinition/BulkPublishManifest"


async def _published(api: ApiClient) -> tuple[dict[str, object], str]:
    response = await api.get("/fhir/$bulk-publish")
    assert response.status == 200, await response.text()
    assert response.content_type == "application/json"
    assert response.headers["Cache-Control"] == "public, max-age=10"
    return dict(await response.json()), response.headers["ETag"]


async def _ids(api: ApiClient, url: str) -> list[str]:
    response = await api.get(URL(url).path)
    assert response.status == 200, await response.text()
    return [orjson.loads(line)["id"] for line in (await response.read()).splitlines()]


async def test_the_loaded_directory_is_published_whole(api: ApiClient) -> None:
    manifest, etag = await _published(api)
    assert manifest["manifestType"] == MANIFEST_TYPE
    assert manifest["requiresAccessToken"] is False and "request" not in manifest
    output: list[dict[str, str]] = manifest["output"]  # type: ignore[assignment]
    endpoints = [entry["url"] for entry in output if entry["type"] == "Endpoint"]
    exported = [rid for url in endpoints for rid in await _ids(api, url)]
    assert Counter(exported) == Counter(f"{PLAN_NET_NAME}-{e['id']}" for e in resources("Endpoint"))
    again, same = await _published(api)
    assert again == manifest and same == etag


async def test_a_finished_update_publishes_anew_and_old_files_last_their_grace(
    serve: Serve, es: AsyncElasticsearch, es_url: str, sample_copy: SampleCopy
) -> None:
    names = sample_copy.names
    api = await serve(settings_for(es_url, names))
    assert (await api.get("/fhir/$bulk-publish")).status == 404  # nothing finished here yet

    async def finish(at: str) -> None:
        record = Publication(version=sample_copy.report.version, job="update", finishedAt=at)
        await es.index(index=names.publication(), id=PUBLICATION_ID, document=record, refresh=True)

    await finish("2026-03-01T00:00:00Z")
    first, first_tag = await _published(api)
    await finish("2026-03-08T00:00:00Z")
    second, second_tag = await _published(api)
    old_urls = {entry["url"] for entry in first["output"]}  # type: ignore[attr-defined]
    new_urls = {entry["url"] for entry in second["output"]}  # type: ignore[attr-defined]
    assert first_tag != second_tag and not old_urls & new_urls
    old_file = sorted(old_urls)[0]
    assert (await api.get(URL(old_file).path)).status == 200  # the grace period
    job_id = URL(old_file).parts[-3]
    job = await export_store.job(es, names, job_id)
    assert job is not None
    expired = replace(job, expires=datetime(2000, 1, 1, tzinfo=UTC))
    await export_store.save_job(es, names, job_id, expired)
    assert (await api.get(URL(old_file).path)).status == 404
