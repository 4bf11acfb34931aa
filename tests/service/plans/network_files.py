"""What a plan search should answer, worked out here from the sample's files: each asked NPI's
network status in a plan by the coverage rule (DESIGN 5.4, README "Coverage"), from the
coverage file's rows in force on the day (``tests.source_rows.in_force``) and the NPPES file;
and the order of the plans by the Plan Finder and star rating files. Never through
service.coverage, service.plans or another endpoint."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import date
from functools import cache

from tests.conftest import SAMPLE_DIR
from tests.service.plans import plan_files
from tests.source_rows import active_rows, coverage_rows, in_force, nppes_rows

YEAR = 2026
Row = dict[str, str]
Status = tuple[str, str | None]  # (networkStatus, reason)


@cache
def rows_of_year() -> tuple[Row, ...]:
    return tuple(r for r in coverage_rows(SAMPLE_DIR) if int(r["contract_year"]) == YEAR)


@cache
def _nppes() -> tuple[Row, ...]:
    [path] = sorted(SAMPLE_DIR.glob("npidata_pfile_*"))
    return tuple(nppes_rows(path))


@cache
def held_npis() -> frozenset[str]:
    """The NPIs the directory holds: the active ones of the NPPES file (the sample the shared
    ``api`` serves has no Plan-Net directory)."""
    [path] = sorted(SAMPLE_DIR.glob("npidata_pfile_*"))
    return frozenset(r["NPI"] for r in active_rows(path))


def nowhere_npi() -> str:
    """A well-formed NPI with a right check digit that no file of the sample names."""
    named = {r["NPI"] for r in _nppes()} | {r["npi"] for r in rows_of_year()}
    npi = "1234567893"  # the CMS documentation's example NPI
    assert npi not in named
    return npi


@cache
def plans_with_rows() -> frozenset[str]:
    """The plans some row of the year names: the directory holds a network for them."""
    return frozenset(plan_files.bid(r["bid_id"]) for r in rows_of_year())


def pair_rows(bid: str, npi: str) -> list[Row]:
    return [r for r in rows_of_year() if plan_files.bid(r["bid_id"]) == bid and r["npi"] == npi]


def _any_in_network(rows: Iterable[Row]) -> str:
    in_network = any(r["network_status"] == "in_network" for r in rows)
    return "in_network" if in_network else "out_of_network"


def status(bid: str, npi: str, day: date, location_ids: Sequence[str] | None = None) -> Status:
    """An NPI's status in a plan the area offers on ``day``; ``location_ids``, when asked,
    are taken to be the provider's own (the coverage file's location ids are)."""
    if npi not in held_npis():
        return "unknown", "provider_not_found"
    if bid not in plans_with_rows():
        return "unknown", "no_network_record"
    rows = [r for r in pair_rows(bid, npi) if in_force(r, day)]
    if location_ids is not None:  # a row without a location counts for every location
        return _any_in_network(
            r for r in rows if not r["location_id"] or r["location_id"] in location_ids
        ), None
    if not rows:
        return "out_of_network", "no_participation_record"
    return _any_in_network(rows), None


def in_network_count(bid: str, npis: Sequence[str], day: date) -> int:
    return sum(status(bid, npi, day)[0] == "in_network" for npi in npis)


def premium(bid: str) -> float:
    """The plan file's monthly premium; unknown sorts as the highest."""
    found = plan_files.dollars(plan_files.plans()[bid]["total_monthly_premium"])
    return math.inf if found is None else found


def stars(bid: str) -> float:
    """The contract's overall stars of the year; unrated sorts as the fewest."""
    row = plan_files.star_rows().get((plan_files.plans()[bid]["contract_id"].strip(), YEAR))
    overall = plan_files.stars(row["overall_stars"]) if row else None
    return -math.inf if overall is None else overall


def expected_order(bids: Iterable[str], sort: str, npis: Sequence[str], day: date) -> list[str]:
    """The plans in the asked order (README "Plans for my doctors", the request's ``sort``):
    providers: most asked NPIs in network, then stars, then premium; premium: lowest first;
    stars: highest first; ties by the other two keys, then bid id."""

    def key(bid: str) -> tuple[float, float, float, str]:
        count = in_network_count(bid, npis, day)
        if sort == "providers":
            return -count, -stars(bid), premium(bid), bid
        if sort == "premium":
            return premium(bid), -stars(bid), -count, bid
        return -stars(bid), premium(bid), -count, bid

    return sorted(bids, key=key)
