"""The first ``$export`` and ``$bulk-publish`` under a prefix, at once after a load of a Plan-Net
directory alone: accepted, not a 503. The jobs index is made by that first kick-off; a job is
read back by id, so recording one never waits for the index's refresh, which may come later
than any request timeout (a refresh interval above the service's 0.9 s timeout answered 503,
and a minute later, the index made, the same request worked). Here the jobs index is refreshed
only on demand, so a kick-off that waited for a refresh would wait past the test's timeout."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import orjson
import pytest
from elasticsearch import AsyncElasticsearch
from yarl import URL

from core.index_contract import IndexNames
from indexer.load.run import LoadOptions, SourceFiles, load
from service.fhir.export.store import jobs_index
from tests.conftest import ApiClient, Serve, settings_for
from tests.plan_net_rows import PLAN_NET_DIR, resources

ASYNC = {"Prefer": "respond-async"}


@pytest.fixture
async def directory_alone(
    es: AsyncElasticsearch, sample_sources: SourceFiles
) -> AsyncIterator[IndexNames]:
    names = IndexNames(f"test-first-{uuid.uuid4().hex[:8]}")
    template = f"{names.prefix}-exports-refreshed-on-demand"
    await es.indices.put_index_template(
        name=template,
        index_patterns=[jobs_index(names)],
        template={"settings": {"refresh_interval": "-1"}},
    )
    sources = SourceFiles(
        nppes=None, nucc=sample_sources.nucc, plan_net=PLAN_NET_DIR, plan_net_name="ri"
    )
    try:
        report = await load(es, sources, LoadOptions(names=names))
        assert report.accounted
        yield names
    finally:
        await es.indices.delete(
            index=f"{names.prefix}-*", ignore_unavailable=True, allow_no_indices=True
        )
        await es.indices.delete_index_template(name=template)


async def _endpoint_ids(api: ApiClient, manifest: dict[str, list[dict[str, str]]]) -> set[str]:
    found: set[str] = set()
    for entry in manifest["output"]:
        if entry["type"] == "Endpoint":
            response = await api.get(URL(entry["url"]).path)
            assert response.status == 200
            found |= {orjson.loads(line)["id"] for line in (await response.read()).splitlines()}
    return found


async def test_the_first_kick_off_after_a_directory_alone_is_loaded_is_accepted(
    serve: Serve, es: AsyncElasticsearch, es_url: str, directory_alone: IndexNames
) -> None:
    api = await serve(settings_for(es_url, directory_alone))
    assert not await es.indices.exists(index=jobs_index(directory_alone))
    kick_off = await api.get("/fhir/$export?_type=Endpoint", headers=ASYNC)
    assert kick_off.status == 202, await kick_off.text()
    status = await api.get(URL(kick_off.headers["Content-Location"]).path)
    assert status.status == 200, await status.text()
    expected = {f"ri-{endpoint['id']}" for endpoint in resources("Endpoint")}
    assert await _endpoint_ids(api, await status.json()) == expected
    published = await api.get("/fhir/$bulk-publish")  # its first job too
    assert published.status == 200, await published.text()
    assert await _endpoint_ids(api, await published.json()) == expected
