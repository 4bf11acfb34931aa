"""Medicare Advantage plans of one contract year (the 2026 Plan Finder extracts).

``medicare_plan_finder_2026_plans.csv`` has one row per plan (bid id ``H1234-001-000``); the
plan-by-county and plan-by-ZIP files say where each plan is sold and may name plans the plan
file lacks (those become plan documents from the little they carry).
"""

from __future__ import annotations

from pathlib import Path

from core.documents import Plan
from core.geo import lookup_zip
from core.plans import canonical_bid_id
from indexer.sources.csvfiles import read_rows
from indexer.sources.rejects import Reject

PLAN_YEAR = 2026
PLAN_FINDER = "plan-finder"  # the source of the plans read from the Plan Finder files

STATE_CODES: dict[str, str] = {
    "ALABAMA": "AL", "ALASKA": "AK", "ARIZONA": "AZ", "ARKANSAS": "AR", "CALIFORNIA": "CA",
    "COLORADO": "CO", "CONNECTICUT": "CT", "DELAWARE": "DE", "DISTRICT OF COLUMBIA": "DC",
    "FLORIDA": "FL", "GEORGIA": "GA", "HAWAII": "HI", "IDAHO": "ID", "ILLINOIS": "IL",
    "INDIANA": "IN", "IOWA": "IA", "KANSAS": "KS", "KENTUCKY": "KY", "LOUISIANA": "LA",
    "MAINE": "ME", "MARYLAND": "MD", "MASSACHUSETTS": "MA", "MICHIGAN": "MI", "MINNESOTA": "MN",
    "MISSISSIPPI": "MS", "MISSOURI": "MO", "MONTANA": "MT", "NEBRASKA": "NE", "NEVADA": "NV",
    "NEW HAMPSHIRE": "NH", "NEW JERSEY": "NJ", "NEW MEXICO": "NM", "NEW YORK": "NY",
    "NORTH CAROLINA": "NC", "NORTH DAKOTA": "ND", "OHIO": "OH", "OKLAHOMA": "OK", "OREGON": "OR",
    "PENNSYLVANIA": "PA", "RHODE ISLAND": "RI", "SOUTH CAROLINA": "SC", "SOUTH DAKOTA": "SD",
    "TENNESSEE": "TN", "TEXAS": "TX", "UTAH": "UT", "VERMONT": "VT", "VIRGINIA": "VA",
    "WASHINGTON": "WA", "WEST VIRGINIA": "WV", "WISCONSIN": "WI", "WYOMING": "WY",
    "PUERTO RICO": "PR", "GUAM": "GU", "VIRGIN ISLANDS": "VI", "AMERICAN SAMOA": "AS",
    "NORTHERN MARIANA ISLANDS": "MP",
}  # fmt: skip

_PLAN_ALIASES: dict[str, tuple[str, ...]] = {
    "bid": ("bid_id",),
    "name": ("plan_name",),
    "organization": ("organization",),
    "type": ("plan_type",),
    "snp": ("snp_type",),
    "states": ("states",),
}
_GEO_ALIASES: dict[str, tuple[str, ...]] = {
    "bid": ("bid_id",),
    "state": ("state_dir",),
    "county": ("county",),
    "zip": ("zip",),
    "name": ("plan_name",),
    "organization": ("organization",),
    "type": ("plan_type",),
    "snp": ("snp_type",),
}


def state_codes(text: str) -> list[str]:
    """``"Delaware;District of Columbia"`` -> ``["DE", "DC"]`` (``New_Hampshire`` too)."""
    names = (part.replace("_", " ").strip().upper() for part in text.split(";"))
    return [STATE_CODES.get(name, name) for name in names if name]


def _plan_doc(bid: str, name: str, organization: str, plan_type: str, snp: str) -> Plan:
    contract, plan, segment = bid.split("_")
    return Plan(
        contractYear=PLAN_YEAR,
        bidId=bid,
        contractId=contract,
        planId=plan,
        segmentId=segment,
        # Plan Finder scrapes put the organisation on a second line of some names.
        planName=name.split("\n", 1)[0].strip() or None,
        organization=organization or None,
        planType=plan_type or None,
        snpType=snp or None,
        states=[],
        payerPlanId=None,
        source=PLAN_FINDER,
    )


def read_plans(plans: Path, geography: list[Path], reject: Reject) -> list[Plan]:
    """One document per bid id of the plan file, plus bid ids only the geography files name."""
    docs: dict[str, Plan] = {}
    columns, rows = read_rows(plans, _PLAN_ALIASES)
    if not columns.has("bid"):
        raise ValueError(f"{plans.name}: not a plan file (no bid_id column)")
    pick = columns.picker(("bid", "name", "organization", "type", "snp", "states"))
    for number, row in rows:
        raw_bid, name, organization, plan_type, snp, states = pick(row)
        bid = canonical_bid_id(raw_bid)
        if bid is None:
            reject(plans.name, number, "", "invalid_bid_id")
            continue
        docs[bid] = _plan_doc(bid, name, organization, plan_type, snp)
        docs[bid]["states"] = state_codes(states)
    listed = set(docs)
    for path in geography:
        columns, rows = read_rows(path, _GEO_ALIASES)
        pick = columns.picker(("bid", "name", "organization", "type", "snp", "state", "zip"))
        for number, row in rows:
            raw_bid, name, organization, plan_type, snp, state_dir, zip_code = pick(row)
            bid = canonical_bid_id(raw_bid)
            if bid is None:
                reject(path.name, number, "", "invalid_bid_id")
                continue
            if bid in listed:
                continue
            doc = docs.setdefault(bid, _plan_doc(bid, name, organization, plan_type, snp))
            place = lookup_zip(zip_code.zfill(5)) if zip_code else None
            state = place.state if place else state_dir if len(state_dir) == 2 else ""
            if state and state not in doc["states"]:
                doc["states"].append(state)
    return [docs[bid] for bid in sorted(docs)]
