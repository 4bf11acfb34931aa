"""Chained parameters resolved across every store their target lives in (the ``stores`` route
of service.fhir.search.chain_table): ``Endpoint?organization.address=x`` finds the Organizations
whose address matches x in the search index (providers) and in the plans (payers, networks),
then the Endpoints naming one of them.

The organisations a chain matches may be many (``organization.type=prvgrp``: every provider
organisation), the resources naming organisations few: the targets are looked for among those
the searched type's resources name, when they are at most MAX_CHAIN_TARGETS; else among all,
when they match at most MAX_CHAIN_TARGETS. Past both, the search is refused (400), never
answered from part of the targets.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import date

from elasticsearch import AsyncElasticsearch

from core.documents import Json
from core.index_contract import IndexNames
from core.npi import is_provider_key
from service.errors import InvalidInput
from service.fhir.models import Clause, ResourceType, Search
from service.fhir.render.plans import PlanResources
from service.fhir.render.published import references
from service.fhir.search.chain_table import (
    LIVES_IN,
    MAX_CHAIN_TARGETS,
    REFERENCE_ELEMENTS,
    Store,
    inner_search,
    named_query,
    providers_query,
    published_targets_query,
    route,
)
from service.fhir.search.parameters import TARGETS
from service.fhir.sources import store
from service.fhir.sources.memory import found_in_memory
from service.search_kit import store as search_index


def _total(response: Json) -> int:
    return int(response["hits"]["total"]["value"])


@dataclass
class _Resolution:
    es: AsyncElasticsearch
    names: IndexNames
    today: date
    bound: int
    plans: PlanResources | None = None
    named: dict[str, list[str] | None] = field(default_factory=dict)

    async def named_by(self, kind: ResourceType, head: str) -> list[str] | None:
        """The ``Type/id`` references the resources of ``kind`` hold in ``head``; None when
        there are more than ``bound`` of those resources."""
        if head not in self.named:
            response = await store.published(
                self.es, self.names, named_query(kind, head, self.bound)
            )
            found: list[str] | None = None
            if _total(response) <= self.bound:
                element = REFERENCE_ELEMENTS[(kind, head)]
                prefix = f"{TARGETS[head]}/"
                refs = [
                    ref
                    for hit in response["hits"]["hits"]
                    for ref in references(hit["_source"].get("resource", {}), element)
                    if ref.startswith(prefix)
                ]
                found = list(dict.fromkeys(refs))
            self.named[head] = found
        return self.named[head]

    async def providers(self, inner: Search, among: list[str] | None) -> list[str] | None:
        ids = None if among is None else [ref.partition("/")[2] for ref in among]
        if ids == []:
            return []
        body = providers_query(inner, ids, self.bound, self.today)
        response = await search_index.search(self.es, self.names, body)
        if _total(response) > self.bound:
            return None
        return [f"{inner.kind}/{hit['_id']}" for hit in response["hits"]["hits"]]

    async def planned(self, inner: Search, among: list[str] | None) -> list[str] | None:
        if among is not None:  # a provider's key is never a plan-built resource's id
            among = [ref for ref in among if not is_provider_key(ref.partition("/")[2])]
            if not among:
                return []
        if self.plans is None:
            self.plans = PlanResources(await store.plans(self.es, self.names))
        plans = self.plans
        found = [
            f"{inner.kind}/{r['id']}"
            for r in found_in_memory(inner, plans.organizations, plans.index)
        ]
        found = [ref for ref in found if among is None or ref in among]
        return found if len(found) <= self.bound else None

    async def published(self, inner: Search, among: list[str] | None) -> list[str] | None:
        ids = None if among is None else [ref.partition("/")[2] for ref in among]
        if ids == []:
            return []
        body = published_targets_query(inner, ids, self.bound)
        response = await store.published(self.es, self.names, body)
        if _total(response) > self.bound:
            return None
        return [str(hit["_id"]) for hit in response["hits"]["hits"]]


Resolver = Callable[[_Resolution, Search, list[str] | None], Awaitable[list[str] | None]]
# How each store finds a target type's resources (every store of every type a ``stores`` chain
# points at: tests.service.fhir.test_chain_table checks it).
RESOLVERS: dict[tuple[ResourceType, Store], Resolver] = {
    ("Organization", "search"): _Resolution.providers,
    ("Organization", "plans"): _Resolution.planned,
    ("Endpoint", "published"): _Resolution.published,
}


async def _resolved(resolution: _Resolution, kind: ResourceType, clause: Clause) -> Clause:
    head = clause.name.partition(".")[0]
    inner = inner_search(clause)
    among = await resolution.named_by(kind, head)
    found: list[str] = []
    for where in LIVES_IN[inner.kind]:
        matched = await RESOLVERS[(inner.kind, where)](resolution, inner, among)
        if matched is None:
            raise InvalidInput(
                clause.name,
                f"{clause.name}: more than {resolution.bound} {inner.kind} resources match it,"
                f" and the {kind} resources name more than {resolution.bound}: narrow it"
                f" (a longer value, :exact) or search by {head}=<reference>",
                code="chain_too_broad",
            )
        found += matched
    return replace(clause, resolved=tuple(dict.fromkeys(found)))


async def resolve_chains(
    es: AsyncElasticsearch, names: IndexNames, search: Search, today: date
) -> Search:
    """``search`` with each of its ``stores`` chains' targets found (``Clause.resolved``)."""
    if not any(route(search.kind, c.name) == "stores" for c in search.clauses):
        return search
    resolution = _Resolution(es, names, today, MAX_CHAIN_TARGETS)
    clauses = [
        await _resolved(resolution, search.kind, clause)
        if route(search.kind, clause.name) == "stores"
        else clause
        for clause in search.clauses
    ]
    return replace(search, clauses=tuple(clauses))
