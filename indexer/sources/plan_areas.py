"""Where each plan is sold, from the Plan Finder's plan-by-ZIP and plan-by-county files.

The ZIP file decides for the ZIPs it lists. A county row adds the county, and the ZIPs of that
county (``core.counties.county_zips``) the ZIP file does not list at all. A county row's state is
its ``state_dir`` when that is a state code; the scrape's "SC_dir" directory mixes counties of
neighbouring states, so such a county is looked for in the plan's own states, and a row whose
county is in none of them is rejected (``county_not_in_plan_states``).

The one reader of where plans are sold: the plans index (indexer.assembly.plans) and the coverage
generator (indexer.generate.coverage, a plan at the ZIPs of its area) read it alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from core.counties import county_fips, county_zips, zip_county
from core.plans import canonical_bid_id
from core.zips import lookup_zip
from indexer.sources.csvfiles import read_rows
from indexer.sources.rejects import Reject

_ALIASES: dict[str, tuple[str, ...]] = {
    "bid": ("bid_id",),
    "state": ("state_dir",),
    "county": ("county",),
    "fips": ("fips",),
    "zip": ("zip",),
}


@dataclass
class PlanArea:
    zips: set[str] = field(default_factory=set)
    counties: set[str] = field(default_factory=set)  # FIPS codes


def _zip_fips(zip_code: str, county: str, fips: str, state_dir: str) -> str | None:
    if len(fips) == 5 and fips.isdigit():
        return fips
    place = lookup_zip(zip_code)
    state = place.state if place else state_dir
    return county_fips(county, state) or (found.fips if (found := zip_county(zip_code)) else None)


def read_service_areas(
    zip_plan: Path | None,
    plan_county: Path | None,
    plan_states: dict[str, list[str]],
    reject: Reject,
) -> dict[str, PlanArea]:
    """Bid id -> the ZIPs and counties where the plan is offered."""
    areas: dict[str, PlanArea] = {}
    listed: set[str] = set()
    if zip_plan is not None:
        columns, rows = read_rows(zip_plan, _ALIASES)
        pick = columns.picker(("bid", "zip", "county", "fips", "state"))
        for number, row in rows:
            raw_bid, zip_code, county, fips, state_dir = pick(row)
            bid = canonical_bid_id(raw_bid)
            if bid is None or not (zip_code.isdigit() and len(zip_code) <= 5):
                reject(
                    zip_plan.name, number, "", "invalid_bid_id" if bid is None else "invalid_zip"
                )
                continue
            zip_code = zip_code.zfill(5)
            area = areas.get(bid) or areas.setdefault(bid, PlanArea())  # one made a plan
            area.zips.add(zip_code)
            listed.add(zip_code)
            found = _zip_fips(zip_code, county, fips, state_dir)
            if found is not None:
                area.counties.add(found)
    if plan_county is None:
        return areas
    in_county = county_zips()
    columns, rows = read_rows(plan_county, _ALIASES)
    pick = columns.picker(("bid", "county", "state"))
    for number, row in rows:
        raw_bid, county, state_dir = pick(row)
        bid = canonical_bid_id(raw_bid)
        if bid is None:
            reject(plan_county.name, number, "", "invalid_bid_id")
            continue
        states = [state_dir] if len(state_dir) == 2 else plan_states.get(bid, [])
        counties = {f for s in states if (f := county_fips(county, s)) is not None}
        if not counties:
            reject(plan_county.name, number, "", "county_not_in_plan_states")
            continue
        area = areas.get(bid) or areas.setdefault(bid, PlanArea())
        area.counties |= counties
        area.zips.update(z for f in counties for z in in_county.get(f, ()) if z not in listed)
    return areas
