"""The steps of a FHIR read: find what the id names, build the resource."""

from __future__ import annotations

from datetime import date

from elasticsearch import AsyncElasticsearch

from core.index_contract import SEARCH_FIELDS as F
from core.index_contract import IndexNames
from core.network import role_provider_key
from core.npi import is_provider_key
from core.plan_resources import county_location_id
from service.errors import ResourceNotFound
from service.fhir.models import PUBLISHED_TYPES, Resource, ResourceType
from service.fhir.render.elements import listed
from service.fhir.render.plans import PlanResources
from service.fhir.render.published import published_resource
from service.fhir.render.resources import location, resources_of, serves
from service.fhir.sources import store
from service.fhir.sources.hits import hit_of
from service.search_kit import store as search_index
from service.search_kit.limits import RESOURCE_SOURCE


async def read_resource(
    es: AsyncElasticsearch, names: IndexNames, kind: ResourceType, resource_id: str, today: date
) -> Resource:
    if kind == "Location" and resource_id.startswith(county_location_id("")):
        areas = PlanResources(await store.plans(es, names)).index
        if f"Location/{resource_id}" not in areas:
            raise ResourceNotFound(kind, resource_id)
        return areas[f"Location/{resource_id}"]
    if kind == "Location":
        return await _location(es, names, resource_id)
    if kind in PUBLISHED_TYPES:
        stored = await store.published_documents(es, names, [f"{kind}/{resource_id}"])
        if not stored:
            raise ResourceNotFound(kind, resource_id)
        return published_resource(stored[0])
    if kind == "InsurancePlan" or (kind == "Organization" and not is_provider_key(resource_id)):
        plans = PlanResources(await store.plans(es, names))
        planned = plans.index.get(f"{kind}/{resource_id}")
        if planned is None:
            raise ResourceNotFound(kind, resource_id)
        return planned
    key = role_provider_key(resource_id) if kind == "PractitionerRole" else resource_id
    key = key if key and is_provider_key(key) else None
    found = await store.providers(es, names, [key]) if key else []
    hit = hit_of(found[0], today) if found else None
    if hit is not None and serves(kind, hit.provider, hit.networks):
        for resource in resources_of(kind, hit.provider, hit.locations, hit.networks):
            if resource["id"] == resource_id:
                return resource
    raise ResourceNotFound(kind, resource_id)


async def _location(es: AsyncElasticsearch, names: IndexNames, resource_id: str) -> Resource:
    body = {
        "query": {"term": {F.locationIds: resource_id}},
        "size": 1,
        "_source": list(RESOURCE_SOURCE),
    }
    for hit in (await search_index.search(es, names, body))["hits"]["hits"]:
        for place in hit["_source"]["locations"]:
            if place["id"] == resource_id:
                return location(listed(hit["_source"]), place)
    raise ResourceNotFound("Location", resource_id)
