"""What the Plan Finder files say a plan costs, and the contracts' star ratings.

Costs come from the plan file (``medicare_plan_finder_<year>_plans.csv``) and, for what a row
leaves empty, from the scraped plan details (``..._scraped_plan_details.ndjson``: one plan page
per line, its bid id in ``plan_info.id`` or the page's file name). Star ratings come from the
contract ratings file (``contract_id, part_c_stars, part_d_stars, overall_stars, year``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from pathlib import Path

import orjson

from core.money import parse_money
from core.plan_offers import StarRating
from core.plans import canonical_bid_id
from indexer.sources.csvfiles import open_binary, read_rows
from indexer.sources.rejects import Reject


@dataclass(frozen=True, slots=True)
class PlanCosts:
    monthly_premium: float | None = None
    health_deductible: float | None = None
    drug_deductible: float | None = None
    moop_in_network: float | None = None
    moop_combined: float | None = None

    def filled_from(self, other: PlanCosts) -> PlanCosts:
        """These costs, with what they lack taken from ``other``."""
        missing = {
            f.name: getattr(other, f.name) for f in fields(self) if getattr(self, f.name) is None
        }
        return replace(self, **missing)


_COST_ALIASES: dict[str, tuple[str, ...]] = {
    "bid": ("bid_id",),
    "premium": ("total_monthly_premium",),
    "health": ("health_deductible",),
    "drug": ("drug_deductible",),
    "moop": ("moop", "maximum_out_of_pocket"),
}
_STAR_ALIASES: dict[str, tuple[str, ...]] = {
    "contract": ("contract_id",),
    "part_c": ("part_c_stars",),
    "part_d": ("part_d_stars",),
    "overall": ("overall_stars",),
    "year": ("year",),
}
_PAGE_BID = re.compile(r"([A-Z][0-9]{4})[_-]([0-9]{3})[_-]([0-9]{1,3})")
_CONTRACT = re.compile(r"[A-Z][0-9]{4}")


def costs(premium: str, health: str, drug: str, moop: str) -> PlanCosts:
    out_of_pocket = parse_money(moop)
    return PlanCosts(
        monthly_premium=parse_money(premium).amount,
        health_deductible=parse_money(health).amount,
        drug_deductible=parse_money(drug).amount,
        # An amount that names no network is the plan's only (in-network) maximum.
        moop_in_network=(
            out_of_pocket.in_network
            if out_of_pocket.in_network is not None
            else out_of_pocket.plain
        ),
        moop_combined=out_of_pocket.combined,
    )


def _page_bid(text: str) -> str | None:
    """``H0104-016-0`` or ``Alabama-S5617_220_0.json`` -> the canonical bid id."""
    match = _PAGE_BID.search(text.upper())
    if match is None:
        return None
    contract, plan, segment = match.groups()
    return canonical_bid_id(f"{contract}_{plan}_{segment.zfill(3)}")


def _page_costs(page: dict[str, object]) -> PlanCosts:
    def section(name: str) -> dict[str, str]:
        value = page.get(name)
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}

    premiums, deductibles = section("premiums"), section("deductibles")
    moop = next(iter(section("maximum_out_of_pocket").values()), "")
    return costs(
        premiums.get("Total monthly premium", ""),
        deductibles.get("Health deductible", ""),
        deductibles.get("Drug deductible", ""),
        moop,
    )


def read_plan_costs(plans: Path, details: Path | None, reject: Reject) -> dict[str, PlanCosts]:
    """Bid id -> costs: the plan file's, completed from the scraped pages."""
    found: dict[str, PlanCosts] = {}
    columns, rows = read_rows(plans, _COST_ALIASES)
    pick = columns.picker(("bid", "premium", "health", "drug", "moop"))
    for _, row in rows:
        raw_bid, *money = pick(row)
        bid = canonical_bid_id(raw_bid)
        if bid is not None:  # read_plans rejects the row otherwise
            found[bid] = costs(*money)
    if details is None:
        return found
    with open_binary(details) as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                page = orjson.loads(line)
            except orjson.JSONDecodeError:
                reject(details.name, number, "", "invalid_json")
                continue
            info = page.get("plan_info") if isinstance(page, dict) else None
            bid = _page_bid(str((info or {}).get("id") or page.get("_source_file") or ""))
            if bid is None:
                reject(details.name, number, "", "invalid_bid_id")
                continue
            found[bid] = found.get(bid, PlanCosts()).filled_from(_page_costs(page))
    return found


def _stars(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 1 <= value <= 5 else None


def read_star_ratings(path: Path, reject: Reject) -> dict[tuple[str, int], StarRating]:
    """(contract id, plan year) -> the contract's rating; a contract without any stars (new,
    or too small to measure) has no entry."""
    ratings: dict[tuple[str, int], StarRating] = {}
    columns, rows = read_rows(path, _STAR_ALIASES)
    if not columns.has("contract") or not columns.has("year"):
        raise ValueError(f"{path.name}: not a star ratings file (contract_id, year)")
    pick = columns.picker(("contract", "part_c", "part_d", "overall", "year"))
    for number, row in rows:
        contract, part_c, part_d, overall, year = pick(row)
        contract = contract.upper()
        if not _CONTRACT.fullmatch(contract) or not year.isdigit():
            reject(path.name, number, "", "invalid_contract_or_year")
            continue
        rating: StarRating = {
            "overall": _stars(overall),
            "partC": _stars(part_c),
            "partD": _stars(part_d),
            "year": int(year),
        }
        if rating["overall"] is None and rating["partC"] is None and rating["partD"] is None:
            reject(path.name, number, "", "not_rated")
            continue
        ratings[(contract, int(year))] = rating
    return ratings
