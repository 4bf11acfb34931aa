"""Provider lookups: one lookup document per NPI holding both answers as the bytes they are sent
as (core.lookup_answers), read by id with only the part asked for."""

from __future__ import annotations

from elasticsearch import AsyncElasticsearch, NotFoundError

from core.index_contract import IndexNames
from core.lookup_answers import entity_tag
from service.errors import ProviderNotFound
from service.providers.models import Part, StoredAnswer
from service.storage import document_missing, elasticsearch_errors


async def stored_answer(
    es: AsyncElasticsearch, names: IndexNames, npi: str, part: Part
) -> StoredAnswer:
    """The stored answer for this NPI and the ETag of its bytes; ProviderNotFound when the
    provider is not in the directory."""
    with elasticsearch_errors("the provider index"):
        try:
            # Not real time: what search sees (the last refresh), so a provider's lookup and
            # search documents change together while an update writes (indexer.update.live_version).
            source = await es.get_source(
                index=names.alias("providers"), id=npi, source_includes=[part], realtime=False
            )
        except NotFoundError as error:
            if not document_missing(error):
                raise
            raise ProviderNotFound(npi) from None
    body = source[part].encode()
    return StoredAnswer(body, entity_tag(body))
