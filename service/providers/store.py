"""Provider lookups: one lookup document per NPI (provider and locations), read by id."""

from __future__ import annotations

from typing import Any, cast

from elasticsearch import AsyncElasticsearch, NotFoundError

from core.documents import Location, Provider
from core.index_contract import IndexNames
from service.errors import ProviderNotFound
from service.storage import document_missing, elasticsearch_errors


async def _lookup_part(es: AsyncElasticsearch, names: IndexNames, npi: str, part: str) -> Any:
    with elasticsearch_errors("the provider index"):
        try:
            # Not real time: what search sees (the last refresh), so a provider's lookup and
            # search documents change together while an update writes (indexer.update.live_version).
            response = await es.get(
                index=names.alias("providers"), id=npi, source_includes=part, realtime=False
            )
        except NotFoundError as error:
            if not document_missing(error):
                raise
            raise ProviderNotFound(npi) from None
    return response["_source"].get(part)


async def get_provider(es: AsyncElasticsearch, names: IndexNames, npi: str) -> Provider:
    """The provider with this NPI; ProviderNotFound when it is not in the directory."""
    return cast(Provider, await _lookup_part(es, names, npi, "provider"))


def _answer_order(location: Location) -> tuple[bool, str]:
    return location["source"] != "nppes", location["id"]


async def get_locations(es: AsyncElasticsearch, names: IndexNames, npi: str) -> list[Location]:
    """The provider's locations, the NPPES practice address first, then the others by id;
    ProviderNotFound when the provider is not in the directory."""
    locations = cast(list[Location], await _lookup_part(es, names, npi, "locations") or [])
    return sorted(locations, key=_answer_order)
