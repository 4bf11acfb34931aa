"""The one "in force" rule and the periods the search index stores for it (pure)."""

from __future__ import annotations

import re
from datetime import date

from core.documents import CoverageDoc
from core.network import in_force, network_periods, role_id, role_provider_key
from core.plans import plan_doc_id


def _row(
    bid: str = "H1234_001_000",
    start: str | None = None,
    end: str | None = None,
    status: str = "in_network",
) -> CoverageDoc:
    return {
        "contractYear": 2026,
        "bidId": bid,
        "npi": "1234567893",
        "locationId": None,
        "networkStatus": "in_network" if status == "in_network" else "out_of_network",
        "acceptingNewPatients": None,
        "effectiveDate": start,
        "terminationDate": end,
        "source": "test",
    }


def test_effective_date_is_inclusive_and_termination_exclusive() -> None:
    row = _row(start="2026-01-01", end="2026-07-01")
    assert not in_force(row, date(2025, 12, 31))
    assert in_force(row, date(2026, 1, 1)) and in_force(row, date(2026, 6, 30))
    assert not in_force(row, date(2026, 7, 1))


def test_open_ends_always_match() -> None:
    assert in_force(_row(), date(1990, 1, 1)) and in_force(_row(), date(2100, 1, 1))
    assert in_force(_row(end="2026-07-01"), date(2000, 1, 1))
    assert in_force(_row(start="2026-07-01"), date(2100, 1, 1))


def test_periods_hold_in_network_rows_once_in_a_fixed_order() -> None:
    rows = [
        _row("H2222_001_000", start="2026-03-01"),
        _row("H1111_001_000", end="2026-07-01"),
        _row("H1111_001_000", end="2026-07-01"),  # a location row of the same plan and dates
        _row("H3333_001_000", status="out_of_network"),
    ]
    assert network_periods(rows) == [
        {"key": plan_doc_id(2026, "H1111_001_000"), "period": {"lt": "2026-07-01"}},
        {"key": plan_doc_id(2026, "H2222_001_000"), "period": {"gte": "2026-03-01"}},
    ]
    assert network_periods(reversed(rows)) == network_periods(rows)


def test_a_role_id_names_its_provider_and_network_within_64_characters() -> None:
    npi, uuid = "1234567893", "0f8fad5b-d9cb-469f-a165-70867728950e"
    assert role_id(npi, None) == npi
    assert role_id(npi, "2026:H1234-001-000") == "1234567893-2026-H1234-001-000"
    long_key = "2026:payer-" + "x" * 60
    hashed = role_id(uuid, long_key)
    assert len(hashed) <= 64 and re.fullmatch(r"[A-Za-z0-9\-.]+", hashed)
    assert hashed != role_id(uuid, long_key + "y")
    for key in (None, "2026:H1234-001-000", long_key):
        assert role_provider_key(role_id(npi, key)) == npi
        assert role_provider_key(role_id(uuid, key)) == uuid
    assert role_provider_key("not-a-role") is None
