"""An independent reading of the Plan Finder and star rating files for expectations: plain
``csv.DictReader``, hand-written amount parsing, no indexer or core code."""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from functools import cache
from pathlib import Path

from tests.conftest import SAMPLE_DIR

Row = dict[str, str]
_DOLLARS = re.compile(r"\$([0-9][0-9,]*(?:\.[0-9]+)?)")


def _rows(name: str) -> list[Row]:
    with open(SAMPLE_DIR / name, encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def bid(text: str) -> str:
    return text.strip().upper().replace("-", "_")


@cache
def plans() -> dict[str, Row]:
    return {bid(r["bid_id"]): r for r in _rows("medicare_plan_finder_2026_plans.csv")}


@cache
def zip_rows() -> list[Row]:
    return _rows("medicare_plan_finder_2026_zip_plan.csv")


@cache
def county_rows() -> list[Row]:
    return _rows("medicare_plan_finder_2026_plan_county.csv")


@cache
def plans_by_zip() -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for row in zip_rows():
        found[row["zip"]].add(bid(row["bid_id"]))
    return dict(found)


@cache
def star_rows() -> dict[tuple[str, int], Row]:
    return {
        (r["contract_id"].strip(), int(r["year"])): r
        for r in _rows("ma_star_ratings_contract_2024_2026.csv")
    }


def dollars(text: str) -> float | None:
    """The first dollar amount of a money field ("$1,234.00", "$285 Annual deductible")."""
    match = _DOLLARS.search(text)
    return float(match.group(1).replace(",", "")) if match else None


def out_of_pocket(text: str) -> tuple[float | None, float | None]:
    """(in network, in and out of network) of the moop column."""
    in_network = combined = None
    for part in text.split("|"):
        if "In and Out" in part:
            combined = dollars(part)
        elif "In-network" in part:
            in_network = dollars(part)
    return in_network, combined


def stars(text: str) -> float | None:
    return float(text) if text.strip() else None


def is_special_needs(row: Row) -> bool:
    written = f"{row['snp_type']} {row['plan_type']} {row['plan_name']}"
    return bool(row["snp_type"].strip()) or "SNP" in written.upper()


def sample_path(name: str) -> Path:
    return SAMPLE_DIR / name
