"""The steps of a search of what payers' directories publish (HealthcareService, Endpoint),
and what those bring along: the provider organisations they name and the endpoints."""

from __future__ import annotations

from datetime import date

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from service.fhir.models import Resource, ResourceType, Search
from service.fhir.render.bundle import Page
from service.fhir.render.hits import hit_of
from service.fhir.render.published import published_resource, references
from service.fhir.render.resources import organization
from service.fhir.search.paging import decode_cursor, encode_cursor
from service.fhir.search.published_query import organization_query, published_query
from service.fhir.sources import store
from service.fhir.sources.chains import resolve_chains
from service.fhir.sources.source import Reading

MAX_REVINCLUDED = 1000  # published resources brought along by one page of organisations
_ORGANIZATION_OF = {
    "HealthcareService:organization": "providedBy",
    "Endpoint:organization": "managingOrganization",
}
_ENDPOINT_OF = {"HealthcareService:endpoint": "endpoint"}
PUBLISHED_REVINCLUDES = tuple(_ORGANIZATION_OF)


async def published_page(
    es: AsyncElasticsearch, names: IndexNames, search: Search, today: date
) -> Page:
    after, _, _ = decode_cursor(search.cursor)
    search = await resolve_chains(es, names, search, today)
    response = await store.published(es, names, published_query(search, search.count + 1, after))
    hits = response["hits"]["hits"]
    page = Page(total=int(response["hits"]["total"]["value"]))
    page.matches = [published_resource(hit) for hit in hits[: search.count]]
    if len(hits) > search.count > 0:
        page.next_cursor = encode_cursor(hits[search.count - 1]["sort"])
    page.included = await _included(es, names, search, page.matches, today)
    return page


async def _included(
    es: AsyncElasticsearch,
    names: IndexNames,
    search: Search,
    matches: list[Resource],
    today: date,
) -> list[Resource]:
    organizations: list[str] = []
    endpoints: list[str] = []
    for name in search.includes:
        for resource in matches:
            if name in _ORGANIZATION_OF:
                organizations += references(resource, _ORGANIZATION_OF[name])
            elif name in _ENDPOINT_OF:
                endpoints += references(resource, _ENDPOINT_OF[name])
    npis = [ref.partition("/")[2] for ref in dict.fromkeys(organizations)]
    found: list[Resource] = []
    for raw in await store.providers(es, names, npis):
        hit = hit_of(raw, today)
        found.append(organization(hit.provider, hit.locations))
    ids = list(dict.fromkeys(endpoints))
    found += [published_resource(h) for h in await store.published_documents(es, names, ids)]
    return found


async def published_naming(
    es: AsyncElasticsearch, names: IndexNames, search: Search, organizations: list[Resource]
) -> list[Resource]:
    """``_revinclude`` of HealthcareServices and Endpoints on a page of organisations."""
    kinds = [name.partition(":")[0] for name in search.revincludes if name in _ORGANIZATION_OF]
    refs = [f"Organization/{r['id']}" for r in organizations]
    if not kinds or not refs:
        return []
    body = organization_query(kinds, refs, MAX_REVINCLUDED)
    response = await store.published(es, names, body)
    return [published_resource(hit) for hit in response["hits"]["hits"]]


class Published:
    """What payers' directories publish, served as they gave it (the plans index)."""

    async def page(self, reading: Reading, search: Search) -> Page:
        return await published_page(reading.es, reading.names, search, reading.today)

    async def read(self, reading: Reading, kind: ResourceType, resource_id: str) -> Resource | None:
        ids = [f"{kind}/{resource_id}"]
        stored = await store.published_documents(reading.es, reading.names, ids)
        return published_resource(stored[0]) if stored else None
