"""POST /v2/providers/coverage and the in-network search filter, against the loaded sample.

Expectations come from reading the bundled coverage file here, independently of the indexer."""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from typing import Any

import orjson
import pytest

from core.npi import with_check_digit
from tests.conftest import SAMPLE_DIR, SAMPLE_TODAY, ApiClient
from tests.source_rows import active_rows, canonical_bid, in_force
from tests.source_rows import coverage_rows as sample_coverage_rows

Row = dict[str, str]


@pytest.fixture(scope="module")
def coverage_rows() -> list[Row]:
    rows = sample_coverage_rows(SAMPLE_DIR)
    for row in rows:
        row["bid_id"] = canonical_bid(row["bid_id"])
    return rows


def expected_status(rows: list[Row], bid: str, npi: str, location: str | None, day: date) -> str:
    """in_network / out_of_network by the rows in force; unknown when no row of the year names
    the plan at all (the directory holds no network for it)."""
    if not any(r["bid_id"] == bid for r in rows):
        return "unknown"
    relevant = [
        r
        for r in rows
        if r["bid_id"] == bid
        and r["npi"] == npi
        and in_force(r, day)
        and (location is None or r["location_id"] in ("", location))
    ]
    if any(r["network_status"] == "in_network" for r in relevant):
        return "in_network"
    return "out_of_network"


async def _coverage(api: ApiClient, headers: dict[str, str], **body: Any) -> list[dict[str, Any]]:
    response = await api.post("/v2/providers/coverage", json=body, headers=headers)
    assert response.status == 200, await response.text()
    result: list[dict[str, Any]] = await response.json()
    return result


async def test_answers_equal_the_coverage_file(
    api: ApiClient, auth_header: dict[str, str], coverage_rows: list[Row]
) -> None:
    assert coverage_rows
    pairs = sorted({(r["bid_id"], r["npi"]) for r in coverage_rows})[::7][:40]
    bids = list(dict.fromkeys(bid for bid, _ in pairs))[:10]
    npis = list(dict.fromkeys(npi for bid, npi in pairs if bid in bids))[:100]
    for day in (SAMPLE_TODAY, date(2026, 1, 1), date(2026, 12, 31)):
        answer = await _coverage(
            api,
            auth_header,
            contractYear=2026,
            bidIds=bids,
            npis=[{"npi": n} for n in npis],
            asOf=day.isoformat(),
        )
        assert [group["bidId"] for group in answer] == bids
        for group in answer:
            assert [p["npi"] for p in group["providers"]] == npis
            for entry in group["providers"]:
                expected = expected_status(coverage_rows, group["bidId"], entry["npi"], None, day)
                assert entry["networkStatus"] == expected, (group["bidId"], entry["npi"], day)
                for location in entry["locations"]:
                    want = expected_status(
                        coverage_rows, group["bidId"], entry["npi"], location["id"], day
                    )
                    assert location["networkStatus"] == want


async def test_location_rows(
    api: ApiClient, auth_header: dict[str, str], coverage_rows: list[Row]
) -> None:
    with_location = [r for r in coverage_rows if r["location_id"]][:10]
    assert with_location, "the coverage file should have location-level rows"
    for row in with_location:
        [group] = await _coverage(
            api,
            auth_header,
            contractYear=2026,
            bidIds=[row["bid_id"]],
            npis=[{"npi": row["npi"], "locationIds": [row["location_id"]]}],
            asOf=(row["effective_date"] or SAMPLE_TODAY.isoformat()),
        )
        [location] = group["providers"][0]["locations"]
        day = date.fromisoformat(row["effective_date"]) if row["effective_date"] else SAMPLE_TODAY
        assert location["id"] == row["location_id"]
        assert location["networkStatus"] == expected_status(
            coverage_rows, row["bid_id"], row["npi"], row["location_id"], day
        )


async def test_as_of_outside_the_dates_flips_the_status(
    api: ApiClient, auth_header: dict[str, str], coverage_rows: list[Row]
) -> None:
    dated = [
        r
        for r in coverage_rows
        if r["network_status"] == "in_network" and r["effective_date"] and not r["location_id"]
    ]
    others: dict[tuple[str, str], int] = defaultdict(int)
    for r in coverage_rows:
        others[(r["bid_id"], r["npi"])] += 1
    dated = [r for r in dated if others[(r["bid_id"], r["npi"])] == 1][:5]
    assert dated, "the coverage file should have dated in-network rows"
    for row in dated:
        start = date.fromisoformat(row["effective_date"])
        body = {"contractYear": 2026, "bidIds": [row["bid_id"]], "npis": [{"npi": row["npi"]}]}
        before = await _coverage(
            api, auth_header, asOf=date(start.year - 1, 1, 1).isoformat(), **body
        )
        during = await _coverage(api, auth_header, asOf=start.isoformat(), **body)
        assert before[0]["providers"][0]["networkStatus"] == "out_of_network"
        assert during[0]["providers"][0]["networkStatus"] == "in_network"
        if row["termination_date"]:
            after = await _coverage(api, auth_header, asOf=row["termination_date"], **body)
            assert after[0]["providers"][0]["networkStatus"] == "out_of_network"


async def test_unknown_plan_provider_and_location_say_why(
    api: ApiClient, auth_header: dict[str, str], coverage_rows: list[Row]
) -> None:
    row = coverage_rows[0]
    known = {r["NPI"] for r in active_rows(next(SAMPLE_DIR.glob("npidata_pfile*")))}
    stranger = next(
        with_check_digit(f"19{n:07d}")
        for n in range(10**7)
        if with_check_digit(f"19{n:07d}") not in known
    )
    answer = await _coverage(
        api,
        auth_header,
        contractYear=2026,
        bidIds=[row["bid_id"], "Z9999-999"],
        npis=[
            {"npi": row["npi"], "locationIds": ["not-a-location"]},
            {"npi": stranger},
            {"npi": stranger[:9] + str((int(stranger[9]) + 1) % 10)},  # nobody's: check digit
        ],
    )
    located, unknown_npi, impossible = answer[0]["providers"]
    assert (impossible["networkStatus"], impossible["reason"]) == ("unknown", "provider_not_found")
    assert (located["networkStatus"], located["reason"]) == ("unknown", "location_not_found")
    assert (unknown_npi["networkStatus"], unknown_npi["reason"]) == (
        "unknown",
        "provider_not_found",
    )
    assert unknown_npi["provider"] is None
    assert answer[1]["bidId"] == "Z9999_999_000"
    assert {p["reason"] for p in answer[1]["providers"]} == {"plan_not_found"}
    assert answer[0]["providers"][0]["provider"]["npis"] == [row["npi"]]


async def test_in_network_search_returns_only_listed_providers(
    api: ApiClient, auth_header: dict[str, str], coverage_rows: list[Row]
) -> None:
    per_plan: dict[str, set[str]] = defaultdict(set)
    for r in coverage_rows:
        if r["network_status"] == "in_network" and (
            not r["termination_date"] or date.fromisoformat(r["termination_date"]) > SAMPLE_TODAY
        ):
            per_plan[r["bid_id"]].add(r["npi"])
    bid, members = max(per_plan.items(), key=lambda item: len(item[1]))
    member_locations = await api.get(f"/v2/providers/{min(members)}/locations", headers=auth_header)
    address = (await member_locations.json())[0]["address"]
    response = await api.post(
        "/v2/providers/search",
        headers=auth_header,
        json={
            "location": {"lat": address["lat"], "lng": address["lng"]},
            "radius": 100,
            "bidId": bid.replace("_", "-"),
            "contractYear": 2026,
            "pageSize": 100,
        },
    )
    assert response.status == 200
    page = await response.json()
    returned = {r["npis"][0] for r in page["results"]}
    assert returned and returned <= members


async def test_the_compact_view_is_the_full_answer_with_each_provider_once(
    api: ApiClient, auth_header: dict[str, str], coverage_rows: list[Row]
) -> None:
    pairs = sorted({(r["bid_id"], r["npi"]) for r in coverage_rows})[::5][:40]
    bids = list(dict.fromkeys(bid for bid, _ in pairs))[:5]
    unknown = with_check_digit("299999999")
    npis = [*dict.fromkeys(npi for bid, npi in pairs if bid in bids), unknown]
    body: dict[str, Any] = {
        "contractYear": 2026,
        "bidIds": [*bids, "H9999_999_000"],
        "npis": [{"npi": n} for n in npis],
    }
    full = await _coverage(api, auth_header, **body)
    response = await api.post(
        "/v2/providers/coverage", json={**body, "view": "compact"}, headers=auth_header
    )
    assert response.status == 200
    compact = await response.json()
    providers = compact["providers"]
    assert unknown not in providers and set(providers) == set(npis) - {unknown}
    rebuilt = []
    for plan in compact["plans"]:
        entries = []
        for status in plan["providers"]:
            stored = providers.get(status["npi"], {"provider": None, "locations": []})
            by_id = {location["id"]: location for location in stored["locations"]}
            locations = [{**by_id.get(loc["id"], {}), **loc} for loc in status["locations"]]
            entries.append({**status, "provider": stored["provider"], "locations": locations})
        rebuilt.append({**plan, "providers": entries})
    assert rebuilt == full
    assert len(await response.read()) < len(orjson.dumps(full)) / 2
