"""The steps of a FHIR search, in order: read the page's cursor, resolve what names plans and
networks, query, build the resources of the hits and what they bring along, and say where the
next page starts.

Practitioner and provider Organizations are one resource per provider: a page is a page of
hits. A Location search matches the locations of a hit one by one, a PractitionerRole search
gives a role per network of a hit (their pages are in ``service.fhir.sources.expanded``).
InsurancePlans, payers, networks and the counties plans are sold in are built from the few
plans and searched in memory; an Organization search gives providers first, then payers and
networks, a Location search practice sites first, then counties
(``service.fhir.sources.locations``).
``_text`` asks the /v2 search (service.search), which reads free text as people write it.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from elasticsearch import AsyncElasticsearch
from pydantic import ValidationError

from core.index_contract import IndexNames
from core.plan_resources import network_id
from service.errors import InvalidInput
from service.fhir.models import (
    ENTITY_TYPES,
    PUBLISHED_TYPES,
    TEXT_PARAMETER,
    Near,
    Resource,
    Search,
)
from service.fhir.render.bundle import Page
from service.fhir.render.includes import brought_along, plan_references
from service.fhir.render.plans import PlanResources
from service.fhir.render.resources import practitioner_roles, resources_of
from service.fhir.search.paging import PLAN_PHASE, decode_cursor, encode_cursor
from service.fhir.search.query import (
    NETWORK_PARAMETER,
    build_query,
    members_query,
    miles_inside_near,
)
from service.fhir.sources import store
from service.fhir.sources.expanded import expanded_page, role_networks
from service.fhir.sources.hits import Hit, hit_of
from service.fhir.sources.locations import location_page
from service.fhir.sources.memory import found_in_memory, network_keys
from service.fhir.sources.published import published_naming, published_page
from service.search.models import SearchRequest
from service.search.places import LatLng
from service.search.search import question_hits
from service.search_kit import store as search_index
from service.search_kit.geo import sorted_miles
from service.search_kit.limits import MAX_WINDOW, RESOURCE_SOURCE

MAX_MEMBERS = 1000


def _needs_plans(search: Search) -> bool:
    return (
        search.kind in ("InsurancePlan", "Organization")
        or any(c.name.startswith(NETWORK_PARAMETER) for c in search.clauses)
        or any(name.endswith(":network") for name in search.includes)
    )


async def search_resources(
    es: AsyncElasticsearch, names: IndexNames, search: Search, today: date
) -> Page:
    plans = PlanResources(await store.plans(es, names)) if _needs_plans(search) else None
    if plans is not None and search.kind in ("PractitionerRole", "OrganizationAffiliation"):
        search = replace(search, network_keys=network_keys(search, plans))
    if search.text is not None:
        return await _text_search(es, names, search, today, plans)
    if search.kind == "Location":  # its counties read the plans when a page reaches them
        return await location_page(es, names, search, today, plans)
    if search.kind == "PractitionerRole":
        return await expanded_page(es, names, search, today, plans.index if plans else None)
    if search.kind in PUBLISHED_TYPES:
        return await published_page(es, names, search, today)
    if search.kind == "InsurancePlan":
        assert plans is not None
        return _memory_page(search, plans.insurance_plans, plans)
    after, _, phase = decode_cursor(search.cursor)
    organizations = plans is not None and search.kind == "Organization"
    if phase == PLAN_PHASE and plans is not None:  # the providers were all given
        page = _memory_page(search, plans.organizations, plans)
        counted = await search_index.search(es, names, build_query(search, 0, None, today))
        page.total = (page.total or 0) + int(counted["hits"]["total"]["value"])
        page.included += await _network_members(es, names, search, page, plans, today)
        return page
    body = build_query(search, search.count + 1, after, today)
    response = await search_index.search(es, names, body)
    hits = response["hits"]["hits"]
    page = Page(total=int(response["hits"]["total"]["value"]))
    for raw in hits[: search.count]:
        hit = hit_of(raw, today)
        _add_match(page, search, hit, plans)
        if search.near is not None:  # sorted nearest first: the first sort value's distance
            page.miles[(search.kind, page.matches[-1]["id"])] = sorted_miles(raw["sort"][0])
    if len(hits) > search.count > 0:
        page.next_cursor = encode_cursor(hits[search.count - 1]["sort"])
    if search.kind == "Organization":
        page.included += await published_naming(es, names, search, page.matches)
    if organizations and plans is not None:
        matched = found_in_memory(search, plans.organizations, plans.index)
        page.total = (page.total or 0) + len(matched)
        if page.next_cursor is None:
            _then_plan_organizations(page, search, plans, matched, len(hits))
        page.included += await _network_members(es, names, search, page, plans, today)
    return page


async def _network_members(
    es: AsyncElasticsearch,
    names: IndexNames,
    search: Search,
    page: Page,
    plans: PlanResources,
    today: date,
) -> list[Resource]:
    """``_revinclude=PractitionerRole:network``: the roles in the networks of the page (at
    most MAX_MEMBERS: a network of a large plan has tens of thousands)."""
    if "PractitionerRole:network" not in search.revincludes:
        return []
    on_page = {r["id"] for r in page.matches}
    keys = [record.key for record in plans.records if network_id(record.key) in on_page]
    if not keys:
        return []
    response = await search_index.search(es, names, members_query(keys, today, MAX_MEMBERS))
    found = []
    for raw in response["hits"]["hits"]:
        hit = hit_of(raw, today)
        in_page = [key for key in hit.networks if key in keys]
        found += practitioner_roles(hit.provider, hit.locations, in_page)
    return found


def _add_match(page: Page, search: Search, hit: Hit, plans: PlanResources | None) -> None:
    provider, locations, networks = hit.provider, hit.locations, hit.networks
    if search.kind == "PractitionerRole":
        networks = role_networks(search, networks)
    page.matches += resources_of(search.kind, provider, locations, networks)
    index = plans.index if plans else None
    page.included += brought_along(search, provider, locations, locations, networks, index)


def _then_plan_organizations(
    page: Page, search: Search, plans: PlanResources, matched: list[Resource], hits: int
) -> None:
    """The providers are all given: the payers and networks that match fill the page."""
    room = max(search.count - hits, 0)
    for resource in matched[:room]:
        page.matches.append(resource)
        page.included += plan_references(search, resource, plans.index)
    if len(matched) > room and search.count:
        page.next_cursor = encode_cursor(None, room, PLAN_PHASE)


def _memory_page(search: Search, resources: list[Resource], plans: PlanResources) -> Page:
    """A page of resources found in memory."""
    _, skip, _ = decode_cursor(search.cursor)
    matched = found_in_memory(search, resources, plans.index)
    page = Page(total=len(matched))
    for resource in matched[skip : skip + search.count]:
        page.matches.append(resource)
        page.included += plan_references(search, resource, plans.index)
    if skip + search.count < len(matched) and search.count:
        phase = PLAN_PHASE if search.kind == "Organization" else None
        page.next_cursor = encode_cursor(None, skip + search.count, phase)
    return page


def _nearest_miles(near: Near | None, hit: Hit) -> float | None:
    """How far the nearest of a hit's locations is (a ``_text`` hit has no sort by distance)."""
    if near is None:
        return None
    found = [
        m for m in (miles_inside_near(near, place) for place in hit.locations) if m is not None
    ]
    return min(found, default=None)


async def _text_search(
    es: AsyncElasticsearch,
    names: IndexNames,
    search: Search,
    today: date,
    plans: PlanResources | None,
) -> Page:
    _, offset, _ = decode_cursor(search.cursor)
    near = search.near
    entity_type = ENTITY_TYPES[search.kind] or "individual"
    place = {"location": LatLng(lat=near.lat, lng=near.lng), "radius": near.miles} if near else {}
    try:
        request = SearchRequest.model_validate(
            {
                "query": search.text,
                "entityType": entity_type,
                "pageSize": max(search.count, 1),
                "offset": min(offset, MAX_WINDOW - 1),
                **place,
            }
        )
    except ValidationError as error:
        why = error.errors()[0]["msg"]
        raise InvalidInput(TEXT_PARAMETER, f"{TEXT_PARAMETER}: {why}") from None
    response = await question_hits(es, names, request, today=today, source=RESOURCE_SOURCE)
    total = int(response["hits"]["total"]["value"])
    page = Page(total=total)
    for raw in response["hits"]["hits"][: search.count]:
        hit = hit_of(raw, today)
        given = len(page.matches)
        _add_match(page, search, hit, plans)
        nearest = _nearest_miles(near, hit)
        if nearest is not None:
            for resource in page.matches[given:]:
                page.miles[(search.kind, resource["id"])] = nearest
    following = offset + search.count
    if search.count and following < min(total, MAX_WINDOW):
        page.next_cursor = encode_cursor(None, following)
    return page
