"""What every store behind a resource type offers (``Source``) and what one request reads with
(``Reading``): the Elasticsearch client, the served indices, the day whose in-network rows are in
force, and the plans' resources, read at most once and only by the steps that need them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Protocol

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from service.fhir.models import Resource, ResourceType, Search
from service.fhir.render.bundle import Page
from service.fhir.render.plans import PlanResources
from service.fhir.sources import store


@dataclass
class Reading:
    es: AsyncElasticsearch
    names: IndexNames
    today: date
    plans_read: PlanResources | None = None  # once a step has read them

    async def plans(self) -> PlanResources:
        if self.plans_read is None:
            self.plans_read = PlanResources(await store.plans(self.es, self.names))
        return self.plans_read

    @property
    def plan_index(self) -> dict[str, Resource] | None:
        """The payers and networks by reference, when read (what a role's network includes)."""
        return self.plans_read.index if self.plans_read else None


class Source(Protocol):
    """Where a type's resources are found: a page of a search, and one resource by id (None: no
    such resource)."""

    async def page(self, reading: Reading, search: Search) -> Page: ...

    async def read(
        self, reading: Reading, kind: ResourceType, resource_id: str
    ) -> Resource | None: ...
