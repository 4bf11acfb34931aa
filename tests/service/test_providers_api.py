"""GET /v2/providers/{npi} and /locations against the loaded sample: fields equal the source row."""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from core.npi import ID_NAMESPACE, with_check_digit
from indexer.load.run import LoadReport, SourceFiles
from tests.conftest import ApiClient
from tests.service.search.calls import search
from tests.source_rows import active_rows, nppes_rows, taxonomies

PRACTICE = "Provider Business Practice Location Address"


def _or_none(value: str) -> str | None:
    return value or None


def _expected_provider(row: dict[str, str]) -> dict[str, Any]:
    individual = row["Entity Type Code"] == "1"
    dba = (
        row["Provider Other Organization Name"]
        if row["Provider Other Organization Name Type Code"] == "3"
        else ""
    )
    primary = taxonomies(row)
    return {
        "npis": [row["NPI"]],
        "entityType": "individual" if individual else "organization",
        "organizationName": _or_none(row["Provider Organization Name (Legal Business Name)"]),
        "doingBusinessAs": _or_none(dba),
        "firstName": _or_none(row["Provider First Name"]),
        "lastName": _or_none(row["Provider Last Name (Legal Name)"]),
        "middleName": _or_none(row["Provider Middle Name"]),
        "prefix": _or_none(row["Provider Name Prefix Text"]),
        "suffix": _or_none(row["Provider Name Suffix Text"]),
        "gender": _or_none(row["Provider Sex Code"]) if individual else None,
        # each code once (NPPES repeats one per licence state), primary if any row says so
        "taxonomyCodes": list(primary),
        "primary": list(primary.values()),
    }


@pytest.fixture(scope="module")
def sample_rows(sample_sources: SourceFiles) -> list[dict[str, str]]:
    rows = active_rows(sample_sources.nppes_file)
    individuals = [r for r in rows if r["Entity Type Code"] == "1"][:60]
    organizations = [r for r in rows if r["Entity Type Code"] == "2"][:30]
    with_dba = [r for r in rows if r["Provider Other Organization Name Type Code"] == "3"][:10]
    return individuals + organizations + with_dba


async def test_provider_fields_equal_the_source_row(
    api: ApiClient, auth_header: dict[str, str], sample_rows: list[dict[str, str]]
) -> None:
    for row in sample_rows:
        response = await api.get(f"/v2/providers/{row['NPI']}", headers=auth_header)
        assert response.status == 200, row["NPI"]
        body = await response.json()
        expected = _expected_provider(row)
        assert [s["code"] for s in body["specialties"]] == expected.pop("taxonomyCodes")
        assert [s["primary"] for s in body["specialties"]] == expected.pop("primary")
        assert {k: body[k] for k in expected} == expected
        assert all(s["displayName"] for s in body["specialties"])
        assert len(body["id"]) == 36


async def test_a_search_result_is_the_provider_a_lookup_answers(
    api: ApiClient, auth_header: dict[str, str], sample_rows: list[dict[str, str]]
) -> None:
    """Search documents store the provider without the id its NPI gives (issue 35); a search
    result carries it all the same, the lookup's provider field for field."""
    for row in sample_rows[:20]:
        name = (
            row["Provider Organization Name (Legal Business Name)"]
            or row["Provider Last Name (Legal Name)"]
        )
        page = await search(api, auth_header, query=name, pageSize=100)
        [found] = [r for r in page["results"] if r["npis"] == [row["NPI"]]]
        lookup = await (await api.get(f"/v2/providers/{row['NPI']}", headers=auth_header)).json()
        assert (
            found["id"] == lookup["id"] == str(uuid.uuid5(ID_NAMESPACE, f"provider:{row['NPI']}"))
        )
        assert {k: v for k, v in found.items() if k != "locations"} == lookup


async def test_locations_equal_the_source_practice_address(
    api: ApiClient, auth_header: dict[str, str], sample_rows: list[dict[str, str]]
) -> None:
    for row in sample_rows[:40]:
        response = await api.get(f"/v2/providers/{row['NPI']}/locations", headers=auth_header)
        assert response.status == 200
        # The NPPES practice address is one of the provider's locations (others may come from
        # further sources, e.g. Doctors & Clinicians).
        [location] = [
            location
            for location in await response.json()
            if location["address"]["line1"]
            == row["Provider First Line Business Practice Location Address"]
            and location["address"]["city"] == row[f"{PRACTICE} City Name"]
        ]
        assert {p for p in [row[f"{PRACTICE} Telephone Number"]] if p} <= set(
            location["phoneNumbers"]
        )
        assert {p for p in [row[f"{PRACTICE} Fax Number"]] if p} <= set(location["faxNumbers"])


@pytest.mark.parametrize(
    "npi",
    [
        "123",
        "12345678901",
        "abcdefghij",
        "\uff11\uff10\uff10\uff13\uff10\uff10\uff10\uff11\uff10\uff10",
    ],
)
async def test_malformed_npi_is_400_problem(
    api: ApiClient, auth_header: dict[str, str], npi: str
) -> None:
    for path in (f"/v2/providers/{npi}", f"/v2/providers/{npi}/locations"):
        response = await api.get(path, headers=auth_header)
        assert response.status == 400
        assert response.content_type == "application/problem+json"
        body = await response.json()
        assert body["code"] == "invalid_npi"
        assert body["errors"][0]["field"] == "npi"
        assert body["requestId"] == response.headers["X-Request-ID"]


async def test_an_npi_with_a_wrong_check_digit_is_nobody_s(
    api: ApiClient, auth_header: dict[str, str], sample_sources: SourceFiles
) -> None:
    """Well-formed by the published schema, so not a 400: no provider can have it (404)."""
    valid = active_rows(sample_sources.nppes_file)[0]["NPI"]
    wrong = valid[:9] + str((int(valid[9]) + 1) % 10)
    for path in (f"/v2/providers/{wrong}", f"/v2/providers/{wrong}/locations"):
        response = await api.get(path, headers=auth_header)
        assert response.status == 404
        body = await response.json()
        assert body["code"] == "provider_not_found" and "check digit" in body["detail"]


async def test_unknown_and_deactivated_npis_are_404(
    api: ApiClient, auth_header: dict[str, str], sample_sources: SourceFiles
) -> None:
    known = {row["NPI"] for row in nppes_rows(sample_sources.nppes_file)}
    unknown = next(
        with_check_digit(f"19{n:07d}")
        for n in range(10**7)
        if with_check_digit(f"19{n:07d}") not in known
    )
    active = {row["NPI"] for row in active_rows(sample_sources.nppes_file)}
    deactivated = sorted(known - active)[0]
    for npi in (unknown, deactivated):
        for path in (f"/v2/providers/{npi}", f"/v2/providers/{npi}/locations"):
            response = await api.get(path, headers=auth_header)
            assert response.status == 404, path
            assert (await response.json())["code"] == "provider_not_found"


async def test_health_and_readiness(api: ApiClient) -> None:
    assert (await api.get("/healthz")).status == 200
    ready = await api.get("/readyz")
    assert ready.status == 200
    assert (await ready.json())["status"] == "ready"


async def test_unknown_route_and_wrong_method_are_problems(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    missing = await api.get("/v2/nothing-here", headers=auth_header)
    assert missing.status == 404
    assert missing.content_type == "application/problem+json"
    wrong = await api.delete("/v2/providers/1003000100", headers=auth_header)
    assert wrong.status == 405
    assert (await wrong.json())["code"] == "method_not_allowed"


async def test_a_lookup_answers_the_stored_bytes_and_their_tag(
    api: ApiClient,
    auth_header: dict[str, str],
    es: AsyncElasticsearch,
    loaded_sample: tuple[IndexNames, LoadReport],
    sample_rows: list[dict[str, str]],
) -> None:
    names, _ = loaded_sample
    npi = sample_rows[0]["NPI"]
    stored = (await es.get(index=names.alias("providers"), id=npi))["_source"]
    for path, part in (
        (f"/v2/providers/{npi}", "provider"),
        (f"/v2/providers/{npi}/locations", "locations"),
    ):
        response = await api.get(path, headers=auth_header)
        assert response.headers["Content-Type"] == "application/json"
        assert await response.read() == stored[part].encode()
        # The documented tag: a strong ETag of the answer's bytes (their SHA-256, 40 hex digits),
        # worked out here, not by the code that makes it.
        digest = hashlib.sha256(await response.read()).hexdigest()[:40]
        assert response.headers["ETag"] == f'"{digest}"'
