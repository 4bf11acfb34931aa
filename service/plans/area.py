"""The area a plan search names, resolved from the offline ZIP and county tables (pure)."""

from __future__ import annotations

from core.counties import county, zip_county
from core.zips import lookup_zip
from service.errors import AreaNotFound
from service.plans.models import Area, PlanSearchRequest


def resolve_area(request: PlanSearchRequest) -> tuple[Area, bool]:
    """The area and whether the tables know it. An unknown county code is a 404 now; an
    unknown ZIP is one only when no plan lists it either (the plan files may name a ZIP the
    table lacks)."""
    if request.countyFips is not None:
        found = county(request.countyFips)
        if found is None:
            raise AreaNotFound("countyFips", request.countyFips)
        area: Area = {
            "zip": None,
            "countyFips": found.fips,
            "countyName": found.name,
            "state": found.state,
        }
        return area, True
    zip_code = request.zip or ""
    place = lookup_zip(zip_code)
    in_county = zip_county(zip_code)
    return {
        "zip": zip_code,
        "countyFips": in_county.fips if in_county else None,
        "countyName": in_county.name if in_county else None,
        "state": place.state if place else None,
    }, place is not None
