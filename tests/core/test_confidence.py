"""The score rule, case by case: each row of the README's table worked by hand (the day, the
evidence, the location's facts and the provider's signals in; the score and reasons out)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from core.confidence import Ages, is_nppes_alone, nppes_alone, rescored
from core.documents import Location

DAY = Ages.on(date(2026, 11, 28))  # recent: since 2025-11-28; stale: before 2021-11-28
ACME = "plan-net:acme"
BETA = "plan-net:beta"


def _location(
    evidence: list[tuple[str, str | None]],
    *,
    phones: tuple[str, ...] = ("2075550100",),
    precision: str | None = "zip5",
    line1: str = "36 MAIN ST",
    listed_without_phone: bool = False,
) -> Location:
    location: dict[str, Any] = {
        "address": {"line1": line1},
        "phoneNumbers": list(phones),
        "geocodePrecision": precision,
        "confidence": {
            "score": 3,
            "evidence": [{"source": s, "asOf": d} for s, d in evidence],
            "reasons": ["no_phone"] if listed_without_phone else [],
        },
    }
    return location  # type: ignore[return-value]


CASES = [
    # (what, evidence, location facts, provider signals, score, reasons)
    ("NPPES alone, updated 2024", [("nppes", "2024-01-19")], {}, [], 3,
     ["single_source", "zip_only_geocode"]),
    ("NPPES alone, placed exactly", [("nppes", "2024-01-19")], {"precision": "exact"}, [], 3,
     ["single_source"]),
    ("NPPES alone, last updated 2015: stale", [("nppes", "2015-03-02")], {}, [], 2,
     ["single_source", "stale", "zip_only_geocode"]),
    ("NPPES alone, no date", [("nppes", None)], {}, [], 3, ["single_source", "zip_only_geocode"]),
    ("NPPES and a payer agree, payer this year", [("nppes", "2024-01-19"), (ACME, "2026-06-01")],
     {"precision": "exact"}, [], 5, ["confirmed"]),
    ("NPPES and a payer agree, both older than a year",
     [("nppes", "2024-01-19"), (ACME, "2024-01-19")], {"precision": "exact"}, [], 4,
     ["confirmed"]),
    ("NPPES and DAC agree, DAC loaded today", [("nppes", "2019-05-05"), ("dac", "2026-11-28")],
     {}, [], 5, ["confirmed", "zip_only_geocode"]),
    ("three sources, all stale", [("nppes", "2010-01-01"), ("dac", "2011-01-01"),
                                  (ACME, "2012-01-01")], {}, [], 3,
     ["confirmed", "stale", "zip_only_geocode"]),
    ("a payer alone lists it", [(ACME, "2026-06-01")], {"precision": "exact"}, [], 2,
     ["address_unconfirmed"]),
    ("two payers agree", [(ACME, "2026-06-01"), (BETA, "2026-01-10")], {"precision": "exact"},
     [], 5, ["confirmed"]),
    ("no phone at all", [("nppes", "2024-01-19")], {"phones": ()}, [], 2,
     ["single_source", "no_phone", "zip_only_geocode"]),
    ("a payer lists it without a phone, NPPES gives one",
     [("nppes", "2024-01-19"), (ACME, "2024-01-19")], {"listed_without_phone": True}, [], 3,
     ["confirmed", "no_phone", "zip_only_geocode"]),
    ("not placed", [("nppes", "2024-01-19")], {"precision": None}, [], 3,
     ["single_source", "not_geocoded"]),
    ("a post-office box", [("nppes", "2024-01-19")], {"line1": "PO BOX 1234"}, [], 1,
     ["single_source", "zip_only_geocode", "po_box"]),
    ("NPI deactivated, the payer lists it", [(ACME, "2026-06-01")], {"precision": "exact"},
     [(ACME, "npi_deactivated")], 1, ["address_unconfirmed", "npi_deactivated"]),
    ("the payer's name differs: its listing lowered",
     [("nppes", "2024-01-19"), (ACME, "2026-06-01")], {"precision": "exact"},
     [(ACME, "name_differs_from_nppes")], 4, ["confirmed", "name_differs_from_nppes"]),
    ("another payer's signal does not lower NPPES's own address", [("nppes", "2024-01-19")],
     {"precision": "exact"}, [(ACME, "many_locations")], 3, ["single_source"]),
    ("many locations, an address only that payer gives", [(ACME, "2026-06-01")],
     {"precision": "exact"}, [(ACME, "many_locations")], 1,
     ["address_unconfirmed", "many_locations"]),
    ("an NPI NPPES does not hold, its check digit right", [(ACME, "2026-06-01")],
     {"precision": "exact"}, [(ACME, "npi_not_in_nppes")], 1,
     ["address_unconfirmed", "npi_not_in_nppes"]),
    ("never above 5", [("nppes", "2026-11-01"), ("dac", "2026-11-28"), (ACME, "2026-11-20")],
     {"precision": "exact"}, [], 5, ["confirmed"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("evidence", "facts", "signals", "score", "reasons"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_the_rule_case_by_case(
    evidence: list[tuple[str, str | None]],
    facts: dict[str, Any],
    signals: list[tuple[str, Any]],
    score: int,
    reasons: list[str],
) -> None:
    confidence = rescored(_location(evidence, **facts), signals, DAY)
    assert (confidence["score"], confidence["reasons"]) == (score, reasons)
    assert confidence["evidence"] == [{"source": s, "asOf": d} for s, d in evidence]


def test_a_score_is_the_same_whenever_it_is_made_on_the_same_day() -> None:
    location = _location([("nppes", "2024-01-19"), (ACME, "2026-06-01")])
    first = rescored(location, [], DAY)
    again = rescored({**location, "confidence": first}, [], DAY)
    assert first == again


# (what, evidence, location facts, provider signals, the provider's last update, whether a
# search document's source may leave the confidence out: NPPES alone gave it, unlowered)
ALONE = [
    ("NPPES alone, its date", [("nppes", "2024-01-19")], {}, [], "2024-01-19", True),
    ("NPPES alone, no phone, a PO box, not placed", [("nppes", "2024-01-19")],
     {"phones": (), "line1": "PO BOX 9", "precision": None}, [], "2024-01-19", True),
    ("NPPES alone, no date", [("nppes", None)], {}, [], None, True),
    ("NPPES alone, another date than the provider's", [("nppes", "2024-01-19")], {}, [],
     "2024-02-01", False),
    ("NPPES alone, stale", [("nppes", "2015-03-02")], {}, [], "2015-03-02", False),
    ("NPPES alone, a listing without a phone carried, a phone given", [("nppes", "2024-01-19")],
     {"listed_without_phone": True}, [], "2024-01-19", False),
    ("NPPES alone, a listing without a phone carried, no phone", [("nppes", "2024-01-19")],
     {"listed_without_phone": True, "phones": ()}, [], "2024-01-19", True),
    ("NPPES alone, a payer's signal about its own listing", [("nppes", "2024-01-19")], {},
     [(ACME, "many_locations")], "2024-01-19", True),
    ("NPPES alone, NPPES's own signal", [("nppes", "2024-01-19")], {},
     [("nppes", "name_differs_from_nppes")], "2024-01-19", False),
    ("NPPES and a payer", [("nppes", "2024-01-19"), (ACME, "2026-06-01")], {}, [], "2024-01-19",
     False),
    ("a payer alone", [(ACME, "2024-01-19")], {}, [], "2024-01-19", False),
    ("DAC alone", [("dac", "2024-01-19")], {}, [], "2024-01-19", False),
]  # fmt: skip


@pytest.mark.parametrize(
    ("evidence", "facts", "signals", "as_of", "alone"),
    [case[1:] for case in ALONE],
    ids=[case[0] for case in ALONE],
)
def test_a_confidence_nppes_alone_gives_is_told_from_its_reasons(
    evidence: list[tuple[str, str | None]],
    facts: dict[str, Any],
    signals: list[tuple[str, Any]],
    as_of: str | None,
    alone: bool,
) -> None:
    location = _location(evidence, **facts)
    confidence = rescored(location, signals, DAY)
    assert is_nppes_alone(confidence, location, as_of) is alone
    # What a reader puts back for a confidence left out is the one the rule gave.
    assert (nppes_alone(location, as_of) == confidence) is alone
