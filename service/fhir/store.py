"""The FHIR API's reads: the search alias for searches and locations, the lookup alias for a
provider read by NPI (its stored answers, parsed here because a resource is built from them)."""

from __future__ import annotations

import orjson
from elasticsearch import AsyncElasticsearch, NotFoundError

from core.documents import Json, Location, Provider
from core.index_contract import IndexNames
from service.storage import document_missing, elasticsearch_errors, search_whole

SEARCH_INDEX = "the search index"


async def search(es: AsyncElasticsearch, names: IndexNames, body: Json) -> Json:
    return await search_whole(es, names.alias("search"), body, SEARCH_INDEX)


async def provider(
    es: AsyncElasticsearch, names: IndexNames, npi: str
) -> tuple[Provider, list[Location]] | None:
    """The provider of this NPI and its locations; None when the directory has none."""
    with elasticsearch_errors("the provider index"):
        try:
            source = await es.get_source(
                index=names.alias("providers"),
                id=npi,
                source_includes=["provider", "locations"],
                realtime=False,
            )
        except NotFoundError as error:
            if not document_missing(error):
                raise
            return None
    return orjson.loads(source["provider"]), orjson.loads(source["locations"])
