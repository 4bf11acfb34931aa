"""The counties the Plan Finder files sell plans in, for the FHIR tests' county Locations: read
with plain CSV (tests.service.plans.plan_files), a ZIP's county from the ``zipcodes`` package
(tests.source_rows), county codes from the Census list of ``addfips`` and state names from
``us``, never through the indexer's or the service's code.

A ZIP row names its county's code, or its county, or neither (its ZIP's county then); a county
row's state is its ``state_dir`` when that is a state code, else one of the plan's own states
(the "SC_dir" scrape mixes neighbouring states' counties)."""

from __future__ import annotations

from functools import cache

import addfips
import us

from tests.service.fhir.fhir_rows import Json
from tests.service.plans import plan_files
from tests.source_rows import zip_centroid

JURISDICTION = "jdn"  # HL7 location-physical-type: what a county Location is


def _state_code(name: str) -> str:
    found = us.states.lookup(name.replace("_", " ").strip())
    return found.abbr if found else name


@cache
def _census() -> addfips.AddFIPS:
    return addfips.AddFIPS()  # reads its whole county list: once, not per row


@cache
def _fips(county: str, state: str) -> str | None:
    if not county.strip() or len(state) != 2:
        return None
    found = _census().get_county_fips(county.replace("_", " ").strip(), state=state)
    return found if isinstance(found, str) else None


@cache
def _zip_county(zip_code: str) -> str:
    centroid = zip_centroid(zip_code)
    return centroid[2] if centroid and centroid[2] else ""


@cache
def sold_counties() -> frozenset[str]:
    """The FIPS code of every county a plan of the plans file is sold in."""
    plans = plan_files.plans()
    found: set[str] = set()
    for row in plan_files.zip_rows():
        if plan_files.bid(row["bid_id"]) not in plans:
            continue
        fips = row["fips"] if len(row["fips"]) == 5 and row["fips"].isdigit() else None
        if fips is None:
            fips = _fips(row["county"] or _zip_county(row["zip"].zfill(5)), row["state_dir"])
        if fips is not None:
            found.add(fips)
    for row in plan_files.county_rows():
        plan = plans.get(plan_files.bid(row["bid_id"]))
        if plan is None:
            continue
        own = [_state_code(s) for s in plan["states"].split(";") if s.strip()]
        states = [row["state_dir"]] if len(row["state_dir"]) == 2 else own
        found |= {f for s in states if (f := _fips(row["county"], s)) is not None}
    return frozenset(found)


def counties_in(state: str) -> frozenset[str]:
    """The FIPS codes of the counties of ``state`` (USPS code) plans are sold in."""
    found = us.states.lookup(state)
    assert found is not None, state
    return frozenset(f for f in sold_counties() if f[:2] == found.fips)


def is_county(location: Json) -> bool:
    codes = [c["code"] for c in location.get("physicalType", {}).get("coding", [])]
    return JURISDICTION in codes


def fips_of(county: Json) -> str:
    """The FIPS code a county Location gives as its identifier."""
    [identifier] = county["identifier"]
    return str(identifier["value"])
