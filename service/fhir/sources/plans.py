"""The resources built from the plans (InsurancePlans, payers and networks, counties) as a
source: a few hundred, searched in memory (service.fhir.sources.memory), read by reference."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from service.fhir.models import Resource, ResourceType, Search
from service.fhir.render.bundle import Page
from service.fhir.render.includes import plan_references
from service.fhir.render.plans import PlanResources
from service.fhir.search.paging import decode_cursor, encode_cursor
from service.fhir.sources.memory import found_in_memory
from service.fhir.sources.source import Reading


def memory_page(
    search: Search, resources: list[Resource], plans: PlanResources, phase: str | None = None
) -> Page:
    """A page of resources found in memory (``phase``: what the next page's cursor says)."""
    _, skip, _ = decode_cursor(search.cursor)
    matched = found_in_memory(search, resources, plans.index)
    page = Page(total=len(matched))
    for resource in matched[skip : skip + search.count]:
        page.matches.append(resource)
        page.included += plan_references(search, resource, plans.index)
    if skip + search.count < len(matched) and search.count:
        page.next_cursor = encode_cursor(None, skip + search.count, phase)
    return page


async def plan_built(reading: Reading, kind: ResourceType, resource_id: str) -> Resource | None:
    return (await reading.plans()).index.get(f"{kind}/{resource_id}")


@dataclass(frozen=True)
class PlanBuilt:
    """``of``: which of the plans' resources are the type's."""

    of: Callable[[PlanResources], list[Resource]]

    async def page(self, reading: Reading, search: Search) -> Page:
        plans = await reading.plans()
        return memory_page(search, self.of(plans), plans)

    async def read(self, reading: Reading, kind: ResourceType, resource_id: str) -> Resource | None:
        return await plan_built(reading, kind, resource_id)
