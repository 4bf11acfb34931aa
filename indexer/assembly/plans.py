"""A Plan Finder plan as the plans index keeps it: the plan, its costs, its contract's star
rating for the plan year and where it is sold (``core.plan_offers.OfferedPlanDoc``)."""

from __future__ import annotations

import hashlib

from core.counties import county
from core.documents import Plan
from core.plan_offers import SNP_MARKERS, AreaCounty, OfferedPlanDoc, StarRating
from indexer.sources.csvfiles import open_binary, read_rows
from indexer.sources.discovery import PlanFiles
from indexer.sources.plan_areas import PlanArea, read_service_areas
from indexer.sources.plan_facts import PlanCosts, read_plan_costs, read_star_ratings
from indexer.sources.plans import PLAN_FINDER, read_plans
from indexer.sources.rejects import Reject


def snp_type(plan: Plan) -> str | None:
    """The file's SNP type, else the one the plan's type or name states ("HMO D-SNP")."""
    if plan["snpType"]:
        return plan["snpType"]
    written = f"{plan['planType'] or ''} {plan['planName'] or ''}".upper()
    return next((kind for marker, kind in SNP_MARKERS.items() if marker in written), None)


def offered_plan(
    plan: Plan, costs: PlanCosts | None, rating: StarRating | None, area: PlanArea | None
) -> OfferedPlanDoc:
    costs = costs or PlanCosts()
    area = area or PlanArea()
    counties: list[AreaCounty] = [
        {"fips": c.fips, "name": c.name, "state": c.state}
        for c in (county(fips) for fips in sorted(area.counties))
        if c is not None
    ]
    snp = snp_type(plan)
    zips = sorted(area.zips)
    return {
        **plan,
        "snpType": snp,
        "monthlyPremium": costs.monthly_premium,
        "healthDeductible": costs.health_deductible,
        "drugDeductible": costs.drug_deductible,
        "maxOutOfPocket": {"inNetwork": costs.moop_in_network, "combined": costs.moop_combined},
        "starRating": rating,
        "specialNeeds": snp is not None,
        "serviceArea": {
            "states": sorted({c["state"] for c in counties} or set(plan["states"])),
            "counties": counties,
            "zipCount": len(area.zips),
        },
        "zips": zips,
        "zipsDigest": hashlib.blake2b(" ".join(zips).encode(), digest_size=8).hexdigest(),
        "countyFips": [c["fips"] for c in counties],
    }


__all__ = ["PLAN_FINDER", "offered_plan", "plan_file_rows", "read_offered_plans", "snp_type"]


def read_offered_plans(sources: PlanFiles | None, reject: Reject) -> list[OfferedPlanDoc]:
    """Every plan of the Plan Finder files, with its costs, rating and area (load and update)."""
    if sources is None:
        return []
    geography = [p for p in (sources.plan_county, sources.zip_plan) if p is not None]
    plans = read_plans(sources.plans, geography, reject)
    costs = read_plan_costs(sources.plans, sources.plan_details, reject)
    ratings = read_star_ratings(sources.star_ratings, reject) if sources.star_ratings else {}
    states = {plan["bidId"]: plan["states"] for plan in plans if plan["bidId"]}
    areas = read_service_areas(sources.zip_plan, sources.plan_county, states, reject)
    return [
        offered_plan(
            plan,
            costs.get(bid),
            ratings.get((plan["contractId"] or "", plan["contractYear"])),
            areas.get(bid),
        )
        for plan in plans
        if (bid := plan["bidId"] or "")
    ]


def plan_file_rows(sources: PlanFiles | None) -> dict[str, int]:
    """Rows (records) of each Plan Finder and star rating file, for the load report."""
    counted: dict[str, int] = {}
    if sources is None:
        return counted
    for path in (sources.plans, sources.plan_county, sources.zip_plan, sources.star_ratings):
        if path is not None:
            counted[path.name] = sum(1 for _ in read_rows(path, {})[1])
    if sources.plan_details is not None:
        with open_binary(sources.plan_details) as handle:
            counted[sources.plan_details.name] = sum(1 for line in handle if line.strip())
    return counted
