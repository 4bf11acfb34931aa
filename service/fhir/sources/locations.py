"""A Location search across both stores Locations live in: the practice sites of the search
index (a page of hits expanded, service.fhir.sources.expanded), then the counties the plans are
sold in (built from the plans, service.fhir.render.plans, and matched in memory,
service.fhir.sources.memory).
A page past the practice sites says so in its cursor (``paging.PLAN_PHASE``) with how many
counties were given, so every match is on exactly one page; ``_summary=count`` counts both.

What a county Location holds decides which parameters it can satisfy (service.fhir.render.plans
``search_terms``); one it cannot satisfy leaves every county out:

=====================================  ==================================================
parameter                              a county Location (``county-<FIPS>``)
=====================================  ==================================================
``_id``                                its id
``_lastUpdated``                       when the latest plan sold in it last changed
``identifier``                         its FIPS code (system urn:oid:2.16.840.1.113883.6.93);
                                       a practice site has none
``address``                            its district (the county's name), its state, or both
                                       as written ("Hillsborough County NH")
``address-state``                      its state
``address-city``, ``address-postalcode``  never: a county has no city and no ZIP
``organization`` and its chains        never: no managing organisation
``partof``, ``type``, ``endpoint``     never (no Location served has them)
``near``                               never: a county has no position
=====================================  ==================================================

The plans are read only when counties can match and the page reaches them (the practice sites
all given, or a count asked): most Location searches never pay for them.

Brought along: ``_revinclude=InsurancePlan:coverage-area`` gives the plans sold in a county;
a county has no managing organisation (``_include=Location:organization``), and no role or
affiliation practises at one.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.index_contract import SEARCH_FIELDS as F
from core.plan_resources import county_location_id
from core.search_fields import locations_of
from service.fhir.models import Resource, ResourceType, Search
from service.fhir.render.bundle import Page
from service.fhir.render.elements import listed
from service.fhir.render.plans import PlanResources
from service.fhir.render.resources import location
from service.fhir.search.paging import PLAN_PHASE, decode_cursor, encode_cursor
from service.fhir.sources.expanded import SiteExpansion, expanded_page, expanded_total
from service.fhir.sources.memory import found_in_memory
from service.fhir.sources.source import Reading
from service.search_kit import store as search_index
from service.search_kit.limits import RESOURCE_SOURCE

COVERAGE_AREA = "InsurancePlan:coverage-area"
# The parameters a county can satisfy (the table above): any other leaves every county out.
COUNTY_PARAMETERS = frozenset({"_id", "_lastUpdated", "identifier", "address", "address-state"})


def counties_may_match(search: Search) -> bool:
    return search.near is None and all(c.name in COUNTY_PARAMETERS for c in search.clauses)


def _plans_sold_in(county: Resource, plans: PlanResources) -> list[Resource]:
    reference = f"Location/{county['id']}"
    return [
        plan
        for plan in plans.insurance_plans
        if any(area["reference"] == reference for area in plan.get("coverageArea", []))
    ]


def _add_counties(
    page: Page, search: Search, counties: Sequence[Resource], plans: PlanResources, skip: int
) -> None:
    """The matching counties from ``skip`` on fill the page's room; the next page's cursor
    says how many were given when some are left."""
    room = max(search.count - len(page.matches), 0)
    for county in counties[skip : skip + room]:
        page.matches.append(county)
        if COVERAGE_AREA in search.revincludes:
            page.included += _plans_sold_in(county, plans)
    if skip + room < len(counties):
        page.next_cursor = encode_cursor(None, skip + room, PLAN_PHASE)


async def _counties(reading: Reading, search: Search) -> tuple[list[Resource], PlanResources]:
    """The counties that match, and the plans they were built from."""
    known = await reading.plans()
    return found_in_memory(search, known.areas, known.index), known


async def _practice_site(reading: Reading, resource_id: str) -> Resource | None:
    body = {
        "query": {"term": {F.locationIds: resource_id}},
        "size": 1,
        "_source": list(RESOURCE_SOURCE),
    }
    for hit in (await search_index.search(reading.es, reading.names, body))["hits"]["hits"]:
        for place in locations_of(hit["_source"]):
            if place["id"] == resource_id:
                return location(listed(hit["_source"]), place)
    return None


class Locations:
    """Practice sites (a hit's locations, one by one), then counties (built from the plans)."""

    async def page(self, reading: Reading, search: Search) -> Page:
        """A page of practice sites, then of counties (no total, as a page of practice sites;
        with ``_count=0`` the total of both, None when the practice sites are too many to
        count)."""
        _, skip, phase = decode_cursor(search.cursor)
        with_counties = counties_may_match(search)
        if search.count == 0:
            return Page(total=await self.count(reading, search))
        if phase == PLAN_PHASE:  # the practice sites were all given
            page = Page()
            if with_counties:
                _add_counties(page, search, *(await _counties(reading, search)), skip)
            return page
        page = await expanded_page(
            reading.es, reading.names, search, reading.today, SiteExpansion(), reading.plan_index
        )
        if page.next_cursor is None and with_counties:
            _add_counties(page, search, *(await _counties(reading, search)), 0)
        return page

    async def read(self, reading: Reading, kind: ResourceType, resource_id: str) -> Resource | None:
        if resource_id.startswith(county_location_id("")):
            return (await reading.plans()).index.get(f"Location/{resource_id}")
        return await _practice_site(reading, resource_id)

    async def count(self, reading: Reading, search: Search) -> int | None:
        sites = await expanded_total(
            reading.es, reading.names, search, reading.today, SiteExpansion()
        )
        counties = (await _counties(reading, search))[0] if counties_may_match(search) else []
        return None if sites is None else sites + len(counties)
