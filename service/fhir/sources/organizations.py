"""Organizations live in two stores: the provider organisations of the search index (a page of
hits), then the payers and networks built from the plans (matched in memory). A page past the
providers says so in its cursor (``paging.PLAN_PHASE``) with how many were given; the total
counts both. A page of organisations brings along what payers publish naming them
(service.fhir.sources.published) and, with ``_revinclude=PractitionerRole:network``, the roles
in its networks."""

from __future__ import annotations

from dataclasses import dataclass

from core.npi import is_provider_key
from core.plan_resources import network_id
from service.fhir.models import Resource, ResourceType, Search
from service.fhir.render.bundle import Page
from service.fhir.render.hits import hit_of
from service.fhir.render.includes import plan_references
from service.fhir.render.plans import PlanResources
from service.fhir.render.resources import practitioner_roles
from service.fhir.search.paging import PLAN_PHASE, decode_cursor, encode_cursor
from service.fhir.search.query import members_query
from service.fhir.sources.documents import ProviderDocuments
from service.fhir.sources.memory import found_in_memory
from service.fhir.sources.plans import memory_page, plan_built
from service.fhir.sources.published import published_naming
from service.fhir.sources.source import Reading
from service.search_kit import store as search_index

MAX_MEMBERS = 1000


async def _network_members(
    reading: Reading, search: Search, page: Page, plans: PlanResources
) -> list[Resource]:
    """``_revinclude=PractitionerRole:network``: the roles in the networks of the page (at
    most MAX_MEMBERS: a network of a large plan has tens of thousands)."""
    if "PractitionerRole:network" not in search.revincludes:
        return []
    on_page = {r["id"] for r in page.matches}
    keys = [record.key for record in plans.records if network_id(record.key) in on_page]
    if not keys:
        return []
    body = members_query(keys, reading.today, MAX_MEMBERS)
    response = await search_index.search(reading.es, reading.names, body)
    found = []
    for raw in response["hits"]["hits"]:
        hit = hit_of(raw, reading.today)
        in_page = [key for key in hit.networks if key in keys]
        found += practitioner_roles(hit.provider, hit.locations, in_page)
    return found


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


@dataclass(frozen=True)
class Organizations:
    providers: ProviderDocuments

    async def page(self, reading: Reading, search: Search) -> Page:
        plans = await reading.plans()
        _, _, phase = decode_cursor(search.cursor)
        if phase == PLAN_PHASE:  # the providers were all given
            page = memory_page(search, plans.organizations, plans, PLAN_PHASE)
            page.total = (page.total or 0) + await self.providers.count(reading, search)
            page.included += await _network_members(reading, search, page, plans)
            return page
        page, hits = await self.providers.page_of_hits(reading, search)
        page.included += await published_naming(reading.es, reading.names, search, page.matches)
        matched = found_in_memory(search, plans.organizations, plans.index)
        page.total = (page.total or 0) + len(matched)
        if page.next_cursor is None:
            _then_plan_organizations(page, search, plans, matched, hits)
        page.included += await _network_members(reading, search, page, plans)
        return page

    async def read(self, reading: Reading, kind: ResourceType, resource_id: str) -> Resource | None:
        if is_provider_key(resource_id):
            return await self.providers.read(reading, kind, resource_id)
        return await plan_built(reading, kind, resource_id)
