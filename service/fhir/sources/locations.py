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
from datetime import date

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from service.fhir.models import Resource, Search
from service.fhir.render.bundle import Page
from service.fhir.render.plans import PlanResources
from service.fhir.search.paging import PLAN_PHASE, decode_cursor, encode_cursor
from service.fhir.sources import store
from service.fhir.sources.expanded import expanded_page, expanded_total
from service.fhir.sources.memory import found_in_memory

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


async def _counties(
    es: AsyncElasticsearch, names: IndexNames, search: Search, plans: PlanResources | None
) -> tuple[list[Resource], PlanResources]:
    """The counties that match, and the plans they were built from (read unless given)."""
    known = plans or PlanResources(await store.plans(es, names))
    return found_in_memory(search, known.areas, known.index), known


async def location_page(
    es: AsyncElasticsearch,
    names: IndexNames,
    search: Search,
    today: date,
    plans: PlanResources | None,
) -> Page:
    """A page of practice sites, then of counties (no total, as a page of practice sites; with
    ``_count=0`` the total of both, None when the practice sites are too many to count).
    ``plans``: when the search has read them already (a network parameter)."""
    _, skip, phase = decode_cursor(search.cursor)
    with_counties = counties_may_match(search)
    if search.count == 0:
        sites = await expanded_total(es, names, search, today)
        counties = (await _counties(es, names, search, plans))[0] if with_counties else []
        return Page(total=None if sites is None else sites + len(counties))
    if phase == PLAN_PHASE:  # the practice sites were all given
        page = Page()
        if with_counties:
            _add_counties(page, search, *(await _counties(es, names, search, plans)), skip)
        return page
    page = await expanded_page(es, names, search, today, plans.index if plans else None)
    if page.next_cursor is None and with_counties:
        _add_counties(page, search, *(await _counties(es, names, search, plans)), 0)
    return page
