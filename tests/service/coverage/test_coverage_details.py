"""What a coverage answer says beyond in/out: no participation record, accepting new patients,
the dates of the row in force, "today" from the service's clock, repeated NPIs, the location-id
limit and the 503 when the coverage index is missing. Expectations come from the sample's
coverage file (tests/source_rows.py), never from the service."""

from __future__ import annotations

import csv
from datetime import date
from typing import Any

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from indexer.load.run import LoadOptions, SourceFiles, load
from service.network_kit.models import MAX_LOCATION_IDS
from service.web.app import create_app
from service.web.auth import mint_token
from tests.conftest import SAMPLE_DIR, SAMPLE_TODAY, ApiClient, ClientFactory, settings_for
from tests.source_rows import active_rows, canonical_bid, coverage_rows, in_force

Row = dict[str, str]
ROWS = coverage_rows(SAMPLE_DIR)
FLAGS = {"Y": True, "N": False, "": None}
DAY = "2026-06-30"


def only_row(predicate: Any) -> Row:
    """A provider-wide row that is the only row of its (plan, NPI) pair."""
    pairs: dict[tuple[str, str], list[Row]] = {}
    for row in ROWS:
        pairs.setdefault((canonical_bid(row["bid_id"]), row["npi"]), []).append(row)
    return next(
        rows[0]
        for rows in pairs.values()
        if len(rows) == 1 and not rows[0]["location_id"] and predicate(rows[0])
    )


async def coverage(api: ApiClient, auth: dict[str, str], **body: Any) -> Any:
    response = await api.post("/v2/providers/coverage", json=body, headers=auth)
    assert response.status == 200, await response.text()
    return await response.json()


async def test_a_known_plan_and_provider_without_a_row_is_no_participation_record(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    bid = canonical_bid(ROWS[0]["bid_id"])
    listed = {r["npi"] for r in ROWS if canonical_bid(r["bid_id"]) == bid}
    npi = next(
        r["NPI"]
        for r in active_rows(next(SAMPLE_DIR.glob("npidata_pfile*")))
        if r["NPI"] not in listed
    )
    [plan] = await coverage(api, auth_header, contractYear=2026, bidIds=[bid], npis=[{"npi": npi}])
    [provider] = plan["providers"]
    assert (provider["networkStatus"], provider["reason"]) == (
        "out_of_network",
        "no_participation_record",
    )
    assert plan["plan"] is not None and provider["provider"]["npis"] == [npi]


async def test_a_plan_without_any_participation_row_cannot_say(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    with_rows = {canonical_bid(r["bid_id"]) for r in ROWS}
    plans = (SAMPLE_DIR / "medicare_plan_finder_2026_plans.csv").read_text(encoding="utf-8")
    bids = [canonical_bid(row["bid_id"]) for row in csv.DictReader(plans.splitlines())]
    bid = next(b for b in bids if b not in with_rows)
    npi = ROWS[0]["npi"]
    plan, other = await coverage(
        api,
        auth_header,
        contractYear=2026,
        bidIds=[bid, sorted(with_rows)[0]],
        npis=[{"npi": npi}],
    )
    [provider] = plan["providers"]
    assert plan["plan"] is not None and other["providers"][0]["networkStatus"] != "unknown"
    assert (provider["networkStatus"], provider["reason"]) == ("unknown", "no_network_record")
    assert provider["locations"] and all(
        (loc["networkStatus"], loc["reason"]) == ("unknown", "no_network_record")
        for loc in provider["locations"]
    )


async def test_a_provider_whose_rows_are_not_in_force_is_no_participation_record(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    ended = [
        r
        for r in ROWS
        if r["termination_date"] and r["termination_date"] <= SAMPLE_TODAY.isoformat()
    ]
    pairs = {(canonical_bid(r["bid_id"]), r["npi"]) for r in ended}
    in_force_too = {
        (canonical_bid(r["bid_id"]), r["npi"])
        for r in ROWS
        if not r["termination_date"] or r["termination_date"] > SAMPLE_TODAY.isoformat()
    }
    bid, npi = sorted(pairs - in_force_too)[0]
    [plan] = await coverage(
        api,
        auth_header,
        contractYear=2026,
        bidIds=[bid],
        npis=[{"npi": npi}],
        asOf=SAMPLE_TODAY.isoformat(),
    )
    [provider] = plan["providers"]
    assert (provider["networkStatus"], provider["reason"]) == (
        "out_of_network",
        "no_participation_record",
    )


async def test_the_row_in_force_gives_accepting_and_its_dates(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    def wanted(r: Row) -> bool:
        known = r["accepting_new_patients"] != "" and r["termination_date"] != ""
        in_force_then = in_force(r, date.fromisoformat(DAY))
        return r["network_status"] == "in_network" and known and in_force_then

    row = only_row(wanted)
    body = {"contractYear": 2026, "bidIds": [row["bid_id"]], "npis": [{"npi": row["npi"]}]}
    [plan] = await coverage(api, auth_header, **body, asOf=DAY)
    [provider] = plan["providers"]
    assert provider["networkStatus"] == "in_network" and provider["reason"] is None
    for location in provider["locations"]:
        assert location["acceptingNewPatients"] is FLAGS[row["accepting_new_patients"]]
        assert location["effectiveDate"] == (row["effective_date"] or None)
        assert location["terminationDate"] == row["termination_date"]


@pytest.mark.parametrize("today", [date(2026, 6, 30), date(2026, 7, 1)])
async def test_without_as_of_the_service_clock_decides(
    aiohttp_client: ClientFactory, sample_settings: Any, auth_header: dict[str, str], today: date
) -> None:
    row = only_row(
        lambda r: r["network_status"] == "in_network" and r["termination_date"] == "2026-07-01"
    )
    api = await aiohttp_client(create_app(sample_settings, today=lambda: today))
    body = {"contractYear": 2026, "bidIds": [row["bid_id"]], "npis": [{"npi": row["npi"]}]}
    [plan] = await coverage(api, auth_header, **body)
    assert plan["asOf"] == today.isoformat()
    expected = "in_network" if today.isoformat() < row["termination_date"] else "out_of_network"
    assert plan["providers"][0]["networkStatus"] == expected


async def test_a_repeated_npi_is_answered_once_in_request_order(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    first, second = sorted({r["npi"] for r in ROWS})[:2]
    npis = [{"npi": second}, {"npi": first}, {"npi": second, "locationIds": ["x"]}]
    [plan] = await coverage(
        api, auth_header, contractYear=2026, bidIds=[ROWS[0]["bid_id"]], npis=npis
    )
    assert [p["npi"] for p in plan["providers"]] == [second, first]
    assert plan["providers"][0]["reason"] != "location_not_found"  # the first mention wins


async def test_the_location_id_limit(api: ApiClient, auth_header: dict[str, str]) -> None:
    body = {"contractYear": 2026, "bidIds": [ROWS[0]["bid_id"]]}
    ids = [f"loc-{n}" for n in range(MAX_LOCATION_IDS + 1)]
    ok = await api.post(
        "/v2/providers/coverage",
        json=body | {"npis": [{"npi": ROWS[0]["npi"], "locationIds": ids[:-1]}]},
        headers=auth_header,
    )
    assert ok.status == 200
    assert {loc["reason"] for loc in (await ok.json())[0]["providers"][0]["locations"]} == {
        "location_not_found"
    }
    over = await api.post(
        "/v2/providers/coverage",
        json=body | {"npis": [{"npi": ROWS[0]["npi"], "locationIds": ids}]},
        headers=auth_header,
    )
    assert over.status == 400
    assert (await over.json())["errors"][0]["field"] == "npis.0.locationIds"


async def test_coverage_is_503_when_its_index_is_missing(
    aiohttp_client: ClientFactory,
    es: AsyncElasticsearch,
    es_url: str,
    index_names: IndexNames,
    sample_sources: SourceFiles,
) -> None:
    report = await load(es, sample_sources, LoadOptions(names=index_names))
    await es.indices.delete(index=index_names.versioned("coverage", report.version))
    settings = settings_for(es_url, index_names)
    api = await aiohttp_client(create_app(settings))
    auth = {"Authorization": f"Bearer {mint_token(settings)}"}
    body = {"contractYear": 2026, "bidIds": [ROWS[0]["bid_id"]], "npis": [{"npi": ROWS[0]["npi"]}]}
    response = await api.post("/v2/providers/coverage", json=body, headers=auth)
    assert response.status == 503
    assert (await response.json())["code"] == "backend_unavailable"
    assert response.headers["Retry-After"] == "1"
    assert (await api.get("/readyz")).status == 503
    provider = await api.get(f"/v2/providers/{ROWS[0]['npi']}", headers=auth)
    assert provider.status == 200  # the other indices still serve
