"""``$export``'s kick-off parameters as the Bulk Data IG 2.0 reads them: what the server does not
do (``_typeFilter``, ``_elements``, ``patient``, ``includeAssociatedData``, anything unknown, a
type it does not export) is an OperationOutcome 400, unless ``Prefer: handling=lenient``: then
it is ignored and the manifest's ``error`` file says so, parameter by parameter; ``_type``
repeated is one list; ``_since`` is an instant in any time zone; with anonymous access off,
every step takes a token and the manifest says its files do."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_bulk, async_scan
from yarl import URL

from service.web.settings import Settings
from tests.conftest import ApiClient, SampleCopy, Serve, bearer, settings_for
from tests.plan_net_rows import resources

ASYNC = {"Prefer": "respond-async"}
LENIENT = {"Prefer": "respond-async, handling=lenient"}
UNSUPPORTED = ["_typeFilter", "_elements", "patient", "includeAssociatedData", "_format", "foo"]
ENDPOINT_IDS = {endpoint["id"] for endpoint in resources("Endpoint")}
SERVICE_IDS = {service["id"] for service in resources("HealthcareService")}


async def _manifest(api: ApiClient, query: str, headers: dict[str, str]) -> dict[str, Any]:
    kick_off = await api.get(f"/fhir/$export{query}", headers=headers)
    assert kick_off.status == 202, await kick_off.text()
    status = await api.get(URL(kick_off.headers["Content-Location"]).path, headers=headers)
    assert status.status == 200, await status.text()
    return dict(await status.json())


async def _lines(api: ApiClient, entries: list[dict[str, str]]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for entry in entries:
        response = await api.get(URL(entry["url"]).path)
        assert response.status == 200, await response.text()
        found += [orjson.loads(line) for line in (await response.read()).splitlines()]
    return found


def _source_ids(found: list[dict[str, Any]], kind: str) -> set[str]:
    """The ids the payer's export gave what the file holds (served as ``<directory>-<id>``)."""
    return {r["id"].split("-", 1)[1] for r in found if r["resourceType"] == kind}


@pytest.mark.parametrize("name", UNSUPPORTED)
async def test_a_parameter_the_export_does_not_do_is_a_400(api: ApiClient, name: str) -> None:
    response = await api.get(f"/fhir/$export?_type=Endpoint&{name}=x", headers=ASYNC)
    assert response.status == 400
    outcome = await response.json()
    assert outcome["resourceType"] == "OperationOutcome"
    assert name in outcome["issue"][0]["diagnostics"]
    assert "handling=lenient" in outcome["issue"][0]["diagnostics"]


async def test_lenient_handling_ignores_them_and_says_so_in_the_error_file(api: ApiClient) -> None:
    given = "&".join(f"{name}=x" for name in UNSUPPORTED)
    manifest = await _manifest(api, f"?_type=Endpoint,Patient&{given}", LENIENT)
    assert {entry["type"] for entry in manifest["output"]} == {"Endpoint"}
    assert _source_ids(await _lines(api, manifest["output"]), "Endpoint") == ENDPOINT_IDS
    assert [entry["type"] for entry in manifest["error"]] == ["OperationOutcome"]
    outcomes = await _lines(api, manifest["error"])
    assert all(o["resourceType"] == "OperationOutcome" for o in outcomes)
    said = [issue["diagnostics"] for o in outcomes for issue in o["issue"]]
    assert all(o["issue"][0]["severity"] == "warning" for o in outcomes)
    assert len(said) == len(UNSUPPORTED) + 1  # one per parameter, and the type not exported
    for name in [*UNSUPPORTED, "Patient"]:
        assert sum(name in text for text in said) == 1, name


async def test_lenient_handling_with_nothing_to_ignore_has_no_error_file(api: ApiClient) -> None:
    manifest = await _manifest(api, "?_type=Endpoint", LENIENT)
    assert manifest["error"] == []


async def test_type_repeated_is_one_list(api: ApiClient) -> None:
    manifest = await _manifest(api, "?_type=Endpoint&_type=HealthcareService", ASYNC)
    found = await _lines(api, manifest["output"])
    assert _source_ids(found, "Endpoint") == ENDPOINT_IDS
    assert _source_ids(found, "HealthcareService") == SERVICE_IDS
    assert {r["resourceType"] for r in found} == {"Endpoint", "HealthcareService"}


@pytest.mark.parametrize(
    "since",
    [
        "2026-01-01T00:00:00+25:00",  # an offset out of range
        "2026-01-01T00:00:00+0200",  # FHIR writes the offset with its colon
        "2026-01-01T00:00+02:00",  # an instant has its seconds
        "2026-02-30T00:00:00Z",  # no such day
        "2026-01-01T00:00:00",  # no time zone
        "2026-01-01",
    ],
)
async def test_a_since_that_is_no_instant_is_a_400(api: ApiClient, since: str) -> None:
    query = str(URL("/fhir/$export").with_query({"_since": since}))
    response = await api.get(query, headers=ASYNC)
    assert response.status == 400, since
    outcome = await response.json()
    assert outcome["issue"][0]["code"] == "invalid"
    assert "_since" in outcome["issue"][0]["diagnostics"]


async def test_since_with_an_offset_is_that_instant(
    serve: Serve, es: AsyncElasticsearch, es_url: str, sample_copy: SampleCopy
) -> None:
    """Plans stamped just before, at and after 2025-12-31T22:00:00Z, the rest long before:
    ``_since=2026-01-01T00:00:00+02:00`` is 22:00 UTC, so the InsurancePlans of the last two."""
    names = sample_copy.names
    api = await serve(settings_for(es_url, names))
    plans = names.alias("plans")
    every_plan = {"query": {"bool": {"must_not": {"exists": {"field": "resourceType"}}}}}
    ids = sorted([hit["_id"] async for hit in async_scan(es, index=plans, query=every_plan)])
    stamps = ["2025-12-31T21:59:59Z", "2025-12-31T22:00:00Z", "2025-12-31T23:00:00Z"]
    stamped = dict(zip(ids, [*stamps, *["2020-01-01T00:00:00Z"] * (len(ids) - 3)], strict=True))
    actions = [
        {"_op_type": "update", "_index": plans, "_id": doc_id, "doc": {"changedAt": stamp}}
        for doc_id, stamp in stamped.items()
    ]
    await async_bulk(es, actions, refresh=True)
    later = await es.mget(index=plans, ids=ids[1:3])
    expected = {doc["_source"]["bidId"] for doc in later["docs"]}
    for since in ("2026-01-01T00:00:00%2B02:00", "2026-01-01T00:00:00+02:00"):  # '+': a space
        manifest = await _manifest(api, f"?_type=InsurancePlan&_since={since}", ASYNC)
        found = await _lines(api, manifest["output"])
        assert {i["value"] for r in found for i in r["identifier"]} == expected, since


async def test_with_anonymous_access_off_every_step_takes_a_token(
    serve: Serve, sample_settings: Settings
) -> None:
    settings = sample_settings.model_copy(update={"fhir_anonymous": False})
    api, token = await serve(settings), bearer(settings)
    assert (await api.get("/fhir/$export?_type=Endpoint", headers=ASYNC)).status == 401
    assert (await api.get("/fhir/$bulk-publish")).status == 401
    for path, headers in (
        ("/fhir/$export?_type=Endpoint", {**ASYNC, **token}),
        ("/fhir/$bulk-publish", token),
    ):
        kick_off = await api.get(path, headers=headers)
        assert kick_off.status in (200, 202), await kick_off.text()
        if kick_off.status == 202:
            status = URL(kick_off.headers["Content-Location"]).path
            assert (await api.get(status)).status == 401
            manifest = await (await api.get(status, headers=token)).json()
        else:
            manifest = await kick_off.json()
        assert manifest["requiresAccessToken"] is True
        endpoints = [e for e in manifest["output"] if e["type"] == "Endpoint"]
        file = URL(endpoints[0]["url"]).path
        assert (await api.get(file)).status == 401
        response = await api.get(file, headers=token)
        assert response.status == 200
        found = [orjson.loads(line) for line in (await response.read()).splitlines()]
        assert _source_ids(found, "Endpoint") == ENDPOINT_IDS
