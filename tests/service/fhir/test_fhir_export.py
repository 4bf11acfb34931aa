"""Bulk Data ``$export`` on the sample with its Plan-Net export: kick-off, status, manifest, and
NDJSON files of one type each, every resource once (what they hold, against the loaded files:
test_fhir_export_contents.py); another service instance on the same Elasticsearch answers the
job; cancel, unknown and bad kick-offs."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import orjson
import pytest
from elasticsearch import AsyncElasticsearch
from yarl import URL

from core.index_contract import IndexNames
from service.fhir.export import store as export_store
from service.web.settings import Settings
from tests.conftest import ApiClient, SampleCopy, Serve, settings_for
from tests.plan_net_rows import resources
from tests.service.fhir.conftest import PLAN_NET_NAME

ASYNC = {"Prefer": "respond-async"}
# The reference export's Endpoints, as /fhir serves them (README: "{directory}-{id}").
ENDPOINTS = [f"{PLAN_NET_NAME}-{endpoint['id']}" for endpoint in resources("Endpoint")]
EXPORTED = [
    "Practitioner",
    "PractitionerRole",
    "Organization",
    "OrganizationAffiliation",
    "InsurancePlan",
    "Location",
    "HealthcareService",
    "Endpoint",
]


async def _kick_off(api: ApiClient, query: str = "") -> str:
    response = await api.get(f"/fhir/$export{query}", headers=ASYNC)
    assert response.status == 202, await response.text()
    return URL(response.headers["Content-Location"]).path


async def _manifest(api: ApiClient, status: str) -> dict[str, object]:
    response = await api.get(status)
    assert response.status == 200, await response.text()
    expires = parsedate_to_datetime(response.headers["Expires"])  # an HTTP date, as the IG asks
    assert expires > datetime.now(UTC)
    return dict(await response.json())


async def _exported(api: ApiClient, manifest: dict[str, object]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for entry in manifest["output"]:  # type: ignore[attr-defined]
        response = await api.get(URL(entry["url"]).path)
        assert response.status == 200
        assert response.content_type == "application/fhir+ndjson"
        for line in (await response.read()).splitlines():
            resource = orjson.loads(line)
            assert resource["resourceType"] == entry["type"]
            found.setdefault(entry["type"], []).append(resource["id"])
    return found


async def test_an_export_has_files_of_every_type_each_resource_once(api: ApiClient) -> None:
    status = await _kick_off(api)
    manifest = await _manifest(api, status)
    assert manifest["transactionTime"] and manifest["requiresAccessToken"] is False
    assert manifest["request"] == str(api.make_url("/fhir/$export"))
    assert manifest["error"] == [] and "deleted" not in manifest
    exported = await _exported(api, manifest)
    assert sorted(exported) == sorted(EXPORTED)
    for kind in EXPORTED:
        assert exported[kind] and max(Counter(exported[kind]).values()) == 1, kind
    assert sorted(exported["Endpoint"]) == sorted(ENDPOINTS)


async def test_another_instance_answers_a_job_and_cancel_ends_it(
    api: ApiClient, serve: Serve, sample_settings: Settings
) -> None:
    status = await _kick_off(api, "?_type=Endpoint")
    other = await serve(sample_settings)
    manifest = await _manifest(other, status)
    exported = await _exported(other, manifest)
    assert sorted(exported["Endpoint"]) == sorted(ENDPOINTS)
    assert (await other.delete(status)).status == 202
    assert (await api.get(status)).status == 404
    file = URL(manifest["output"][0]["url"]).path  # type: ignore[index]
    assert (await api.get(file)).status == 404


async def test_an_unknown_job_is_not_found(api: ApiClient) -> None:
    response = await api.get("/fhir/$export-status/0123456789abcdef")
    assert response.status == 404
    assert (await response.json())["resourceType"] == "OperationOutcome"


@pytest.mark.parametrize(
    ("query", "headers"),
    [
        ("", {}),
        ("?_type=Patient", ASYNC),
        ("?_outputFormat=text/csv", ASYNC),
        ("?_since=yesterday", ASYNC),
        ("?_since=2026-01-01T00:00:00", ASYNC),
    ],
)
async def test_a_bad_kick_off_is_a_400(api: ApiClient, query: str, headers: dict[str, str]) -> None:
    response = await api.get(f"/fhir/$export{query}", headers=headers)
    assert response.status == 400
    assert (await response.json())["resourceType"] == "OperationOutcome"


async def test_the_capability_statement_declares_the_export(api: ApiClient) -> None:
    statement = await (await api.get("/fhir/metadata")).json()
    operations = [op["name"] for op in statement["rest"][0]["operation"]]
    assert operations == ["export", "bulk-publish"]


@pytest.mark.parametrize("types", ["_type=Endpoint&", ""])
async def test_since_after_every_change_exports_no_file(api: ApiClient, types: str) -> None:
    """No file of a type with nothing to give, the plan-built ones included (the IG)."""
    manifest = await _manifest(api, await _kick_off(api, f"?{types}_since=2999-01-01T00:00:00Z"))
    assert manifest["output"] == []


async def test_since_lists_the_removals_after_it_as_delete_bundles(
    serve: Serve, es: AsyncElasticsearch, es_url: str, sample_copy: SampleCopy
) -> None:
    api = await serve(settings_for(es_url, sample_copy.names))
    rows = [
        ("Endpoint", "gone-after", "2026-03-01T00:00:00Z"),
        ("Endpoint", "gone-before", "2026-01-01T00:00:00Z"),
        ("Practitioner", "not-asked", "2026-03-01T00:00:00Z"),
    ]
    for kind, rid, at in rows:
        document = {"resourceType": kind, "id": rid, "removedAt": at}
        await es.index(
            index=sample_copy.names.alias("removals"),
            id=f"{kind}/{rid}",
            document=document,
            refresh=True,
        )
    query = "?_type=Endpoint&_since=2026-02-01T00:00:00Z"
    manifest = await _manifest(api, await _kick_off(api, query))
    listed: list[dict[str, str]] = manifest["deleted"]  # type: ignore[assignment]
    assert [entry["type"] for entry in listed] == ["Bundle"]
    response = await api.get(URL(listed[0]["url"]).path)
    bundles = [orjson.loads(line) for line in (await response.read()).splitlines()]
    requests = [e["request"] for b in bundles for e in b["entry"]]
    assert requests == [{"method": "DELETE", "url": "Endpoint/gone-after"}]


async def test_an_expired_job_is_not_found_and_swept(
    api: ApiClient, es: AsyncElasticsearch, served_names: IndexNames
) -> None:
    status = await _kick_off(api, "?_type=Endpoint")
    job_id = status.rsplit("/", 1)[-1]
    job = await export_store.job(es, served_names, job_id)
    assert job is not None
    expired = replace(job, expires=datetime(2000, 1, 1, tzinfo=UTC))
    await export_store.save_job(es, served_names, job_id, expired)
    await es.indices.refresh(index=export_store.jobs_index(served_names))  # the sweep searches
    assert (await api.get(status)).status == 404
    await _kick_off(api, "?_type=Endpoint")  # a kick-off sweeps what expired
    assert await export_store.job(es, served_names, job_id) is None
    jobs = export_store.jobs_index(served_names)
    mapped = (await es.indices.get_mapping(index=jobs))[jobs]["mappings"]["properties"]
    assert mapped == {"expires": {"type": "date", "format": "strict_date_time_no_millis"}}


async def test_a_kick_off_during_an_indexer_job_is_the_snapshot_of_its_start(
    serve: Serve, es: AsyncElasticsearch, es_url: str, sample_copy: SampleCopy
) -> None:
    """An update holding the lock may have stamped some documents and not others: the export
    says it is as of the job's start, so ``_since`` it gets every document the job changes."""
    api = await serve(settings_for(es_url, sample_copy.names))
    started = "2026-02-01T10:20:30+00:00"
    holder = {"job": "update", "detail": "week.csv", "owner": "elsewhere:1", "started": started}
    await es.index(index=sample_copy.names.lock(), id="lock", document=holder, refresh=True)
    manifest = await _manifest(api, await _kick_off(api, "?_type=Endpoint"))
    assert manifest["transactionTime"] == "2026-02-01T10:20:30Z"
    await es.delete(index=sample_copy.names.lock(), id="lock", refresh=True)
    manifest = await _manifest(api, await _kick_off(api, "?_type=Endpoint"))
    assert str(manifest["transactionTime"]) > "2026-02-01T10:20:30Z"


async def test_files_hold_the_documents_per_file_the_settings_say(
    serve: Serve, sample_settings: Settings, api: ApiClient
) -> None:
    tuned = sample_settings.model_copy(update={"export_hits_per_file": 3, "export_page_size": 2})
    small = await serve(tuned)
    manifest = await _manifest(small, await _kick_off(small, "?_type=Endpoint"))
    assert len(manifest["output"]) == -(-len(ENDPOINTS) // 3)  # type: ignore[arg-type]
    assert Counter((await _exported(small, manifest))["Endpoint"]) == Counter(ENDPOINTS)
