"""A provider or its locations by NPI: an NPI that cannot have been issued (wrong check digit) is
nobody's, answered as any unknown NPI without asking Elasticsearch."""

from __future__ import annotations

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from core.npi import is_valid_npi
from service.errors import ProviderNotFound
from service.providers import store
from service.providers.models import Part, StoredAnswer

WRONG_CHECK_DIGIT = " (its check digit is wrong: no such NPI can have been issued)"


async def lookup(es: AsyncElasticsearch, names: IndexNames, npi: str, part: Part) -> StoredAnswer:
    """The provider's answer (``part`` "provider") or its locations' answer, as stored."""
    if not is_valid_npi(npi):
        raise ProviderNotFound(npi, WRONG_CHECK_DIGIT)
    return await store.stored_answer(es, names, npi, part)
