"""The steps of a FHIR read: find the provider the id names, build the resource."""

from __future__ import annotations

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from core.lookup_answers import answer_order
from core.npi import is_npi_shaped
from service.errors import ResourceNotFound
from service.fhir import store
from service.fhir.models import Resource, ResourceType
from service.fhir.resources import location, resource_of, serves


async def read_resource(
    es: AsyncElasticsearch, names: IndexNames, kind: ResourceType, resource_id: str
) -> Resource:
    if kind == "Location":
        body = {
            "query": {"term": {"locationIds": resource_id}},
            "size": 1,
            "_source": ["provider", "locations"],
        }
        hits = (await store.search(es, names, body))["hits"]["hits"]
        for hit in hits:
            for place in hit["_source"]["locations"]:
                if place["id"] == resource_id:
                    return location(hit["_source"]["provider"], place)
        raise ResourceNotFound(kind, resource_id)
    found = await store.provider(es, names, resource_id) if is_npi_shaped(resource_id) else None
    if found is None or not serves(kind, found[0]):
        raise ResourceNotFound(kind, resource_id)
    provider, locations = found
    return resource_of(kind, provider, sorted(locations, key=answer_order))
