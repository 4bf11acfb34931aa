"""The steps of a FHIR read: the type's source finds what the id names and builds the resource,
reduced to what ``_summary`` or ``_elements`` asked for."""

from __future__ import annotations

from datetime import date

import orjson
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from service.errors import ResourceNotFound
from service.fhir.models import Resource, ResourceType, Subset
from service.fhir.render.subsetting import subsetted
from service.fhir.resource_types import SERVED
from service.fhir.sources.source import Reading


async def read_resource(
    es: AsyncElasticsearch, names: IndexNames, kind: ResourceType, resource_id: str, today: date
) -> Resource:
    found = await SERVED[kind].source.read(Reading(es, names, today), kind, resource_id)
    if found is None:
        raise ResourceNotFound(kind, resource_id)
    return found


async def read_answer(
    es: AsyncElasticsearch,
    names: IndexNames,
    kind: ResourceType,
    resource_id: str,
    today: date,
    subset: Subset,
) -> bytes:
    """The resource as answered: reduced to ``subset``, as JSON."""
    found = await read_resource(es, names, kind, resource_id, today)
    return orjson.dumps(subsetted(found, subset))
