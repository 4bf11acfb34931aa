"""A provider or its locations by NPI: an NPI that cannot have been issued (wrong check digit) is
nobody's, answered as any unknown NPI without asking Elasticsearch."""

from __future__ import annotations

from elasticsearch import AsyncElasticsearch

from core.documents import Location, Provider
from core.index_contract import IndexNames
from core.npi import is_valid_npi
from service.errors import ProviderNotFound
from service.providers import store

WRONG_CHECK_DIGIT = " (its check digit is wrong: no such NPI can have been issued)"


def _issuable(npi: str) -> str:
    if not is_valid_npi(npi):
        raise ProviderNotFound(npi, WRONG_CHECK_DIGIT)
    return npi


async def provider(es: AsyncElasticsearch, names: IndexNames, npi: str) -> Provider:
    return await store.get_provider(es, names, _issuable(npi))


async def locations(es: AsyncElasticsearch, names: IndexNames, npi: str) -> list[Location]:
    return await store.get_locations(es, names, _issuable(npi))
