"""POST /v2/plans/search: each asked NPI's status in each plan and the three orders, against what
the sample's coverage, Plan Finder and star rating files say (tests/service/plans/
network_files.py works it out), never against the coverage endpoint or service code."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from tests.conftest import SAMPLE_TODAY, ApiClient
from tests.service.plans import network_files as files
from tests.service.plans import plan_files
from tests.service.plans.conftest import search
from tests.source_rows import in_force

EVERY_KIND = {"planTypes": ["H", "R", "E", "S"], "snp": "include"}
HOME = "03031"  # Amherst, NH: plans with participation rows and plans without any


def _offered_rows(zip_code: str) -> list[files.Row]:
    offered = plan_files.plans_by_zip()[zip_code]
    return [r for r in files.rows_of_year() if _bid(r) in offered]


def _bid(row: files.Row) -> str:
    return plan_files.bid(row["bid_id"])


def doctors(zip_code: str) -> list[str]:
    """NPIs that between them meet every case in the area's plans: the two the file puts in
    most of them, one with an out-of-network row in force, one whose row there is not in force
    on the day (a future start or a past end), then an NPI nobody holds."""
    rows = _offered_rows(zip_code)
    most = [npi for npi, _ in Counter(r["npi"] for r in rows).most_common(2)]
    out = min(
        r["npi"]
        for r in rows
        if r["network_status"] == "out_of_network" and in_force(r, SAMPLE_TODAY)
    )
    lapsed = min(
        r["npi"]
        for r in rows
        if not any(in_force(o, SAMPLE_TODAY) for o in files.pair_rows(_bid(r), r["npi"]))
    )
    chosen = list(dict.fromkeys([*most, out, lapsed]))
    assert set(chosen) <= files.held_npis()
    return [*chosen, files.nowhere_npi()]


def _statuses(plan: Any) -> list[tuple[str, str, str | None]]:
    return [(p["npi"], p["networkStatus"], p["reason"]) for p in plan["providers"]]


def _accepting(bid: str, npi: str) -> bool | None:
    """An in-network row in force on the day says Y (True), else one says N (False), else
    nobody says (None)."""
    said = {
        r["accepting_new_patients"]
        for r in files.pair_rows(bid, npi)
        if r["network_status"] == "in_network" and in_force(r, SAMPLE_TODAY)
    }
    return True if "Y" in said else False if "N" in said else None


async def test_each_npi_s_status_is_the_coverage_file_s_in_every_plan(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    npis = doctors(HOME)
    asked = [{"npi": npi} for npi in npis]
    answer = await search(api, auth_header, zip=HOME, npis=asked, pageSize=100, **EVERY_KIND)
    plans = answer["results"]
    assert {p["bidId"] for p in plans} == plan_files.plans_by_zip()[HOME]
    seen: Counter[tuple[str, str | None]] = Counter()
    for plan in plans:
        bid = plan["bidId"]
        expected = [(npi, *files.status(bid, npi, SAMPLE_TODAY)) for npi in npis]
        assert _statuses(plan) == expected, bid
        assert plan["inNetworkCount"] == files.in_network_count(bid, npis, SAMPLE_TODAY)
        for entry in plan["providers"]:
            assert entry["acceptingNewPatients"] == _accepting(bid, entry["npi"]), (bid, entry)
        seen.update((status, reason) for _, status, reason in expected)
    # The doctors were chosen so that every rule is met, not only the easy ones.
    assert set(seen) == {
        ("in_network", None),
        ("out_of_network", None),
        ("out_of_network", "no_participation_record"),
        ("unknown", "no_network_record"),
        ("unknown", "provider_not_found"),
    }
    assert [p["bidId"] for p in plans] == files.expected_order(
        plan_files.plans_by_zip()[HOME], "providers", npis, SAMPLE_TODAY
    )


async def test_asked_locations_count_their_own_rows_and_rows_without_a_location(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    offered = plan_files.plans_by_zip()[HOME]
    located = [r for r in _offered_rows(HOME) if r["location_id"]]
    row = min(located, key=lambda r: (r["npi"], r["bid_id"]))
    npi, location = row["npi"], row["location_id"]
    asked = [{"npi": npi, "locationIds": [location]}, {"npi": npi}]
    nowhere = {"npi": npi, "locationIds": ["no-such-location"]}
    answer = await search(api, auth_header, zip=HOME, npis=asked[:1], pageSize=100, **EVERY_KIND)
    unknown = await search(api, auth_header, zip=HOME, npis=[nowhere], pageSize=100, **EVERY_KIND)
    assert len(answer["results"]) == len(offered) == len(unknown["results"])
    for plan in answer["results"]:
        [entry] = plan["providers"]
        expected = files.status(plan["bidId"], npi, SAMPLE_TODAY, [location])
        assert (entry["networkStatus"], entry["reason"]) == expected, plan["bidId"]
        assert [loc["id"] for loc in entry["locations"]] == [location]
    at_row = next(p for p in answer["results"] if p["bidId"] == _bid(row))
    assert at_row["providers"][0]["networkStatus"] != "unknown"
    for plan in unknown["results"]:
        [entry] = plan["providers"]
        assert (entry["networkStatus"], entry["reason"]) == ("unknown", "location_not_found")


@pytest.mark.parametrize("sort", ["providers", "premium", "stars"])
@pytest.mark.parametrize("zip_code", ["29201", HOME])
async def test_each_order_is_the_files_order(
    api: ApiClient, auth_header: dict[str, str], sort: str, zip_code: str
) -> None:
    npis = doctors(zip_code)
    asked = [{"npi": npi} for npi in npis]
    body: dict[str, Any] = {"zip": zip_code, "sort": sort, "npis": asked, **EVERY_KIND}
    answer = await search(api, auth_header, pageSize=100, **body)
    offered = plan_files.plans_by_zip()[zip_code]
    expected = files.expected_order(offered, sort, npis, SAMPLE_TODAY)
    assert [p["bidId"] for p in answer["results"]] == expected
    # The sample has ties the later keys and the bid id must break.
    first_key = files.premium if sort == "premium" else files.stars
    assert len({first_key(b) for b in offered}) < len(offered)


async def test_an_npi_asked_twice_is_answered_once_at_its_first_mention(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    """DESIGN 5.7 says nothing of it; the README says the doctors are asked "as in the coverage
    request", which answers an NPI once, as its first mention asked it."""
    first, second = doctors(HOME)[:2]
    location = "no-such-location"
    twice = [{"npi": first}, {"npi": second}, {"npi": first, "locationIds": [location]}]
    answer = await search(api, auth_header, zip=HOME, npis=twice, pageSize=100, **EVERY_KIND)
    for plan in answer["results"]:
        bid = plan["bidId"]
        assert _statuses(plan) == [
            (first, *files.status(bid, first, SAMPLE_TODAY)),
            (second, *files.status(bid, second, SAMPLE_TODAY)),
        ]
        assert all(loc["id"] != location for p in plan["providers"] for loc in p["locations"])
    assert [p["bidId"] for p in answer["results"]] == files.expected_order(
        plan_files.plans_by_zip()[HOME], "providers", [first, second], SAMPLE_TODAY
    )
