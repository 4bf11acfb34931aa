"""Provider lookups: the providers and locations indices, read by NPI."""

from __future__ import annotations

from typing import Any, cast

from elasticsearch import AsyncElasticsearch, NotFoundError

from core.documents import Location, Provider
from core.index_contract import IndexNames
from service.errors import ProviderNotFound
from service.storage import elasticsearch_errors, missing_index

MAX_LOCATIONS = 1000


async def get_provider(es: AsyncElasticsearch, names: IndexNames, npi: str) -> Provider:
    """The provider with this NPI; ProviderNotFound when it is not in the directory."""
    with elasticsearch_errors("the provider index"):
        try:
            response = await es.get(index=names.alias("providers"), id=npi)
        except NotFoundError as error:
            if missing_index(error):
                raise
            raise ProviderNotFound(npi) from None
    return cast(Provider, response["_source"])


async def get_locations(es: AsyncElasticsearch, names: IndexNames, npi: str) -> list[Location]:
    """The provider's locations, the NPPES practice address first; ProviderNotFound when the
    provider is not in the directory."""
    with elasticsearch_errors("the location index"):
        response = await es.search(
            index=names.alias("locations"),
            query={"term": {"npi": npi}},
            # The NPPES practice address ("nppes") first, then the DAC ones ("dac").
            sort=[{"source": "desc"}, {"id": "asc"}],
            size=MAX_LOCATIONS,
        )
    hits: list[dict[str, Any]] = response["hits"]["hits"]
    if not hits:
        await get_provider(es, names, npi)  # raises ProviderNotFound for an unknown NPI
    return [cast(Location, hit["_source"]) for hit in hits]

