"""A provider or its locations by NPI: any NPI the directory holds is answered, check digit right
or wrong (a payer's directory may publish one that fails it; the answer's ``dataQuality`` says
so); one it does not hold is a 404 that says when the check digit is wrong."""

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
    try:
        return await store.stored_answer(es, names, npi, part)
    except ProviderNotFound:
        if is_valid_npi(npi):
            raise
        raise ProviderNotFound(npi, WRONG_CHECK_DIGIT) from None
