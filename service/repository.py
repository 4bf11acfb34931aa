"""Reads from the lookup indices; maps Elasticsearch answers to contract documents."""

from __future__ import annotations

from typing import Any, cast

from elasticsearch import AsyncElasticsearch, NotFoundError

from core.index_contract import IndexNames, LocationDoc, ProviderDoc
from service.errors import elasticsearch_unavailable

MAX_LOCATIONS = 1000


def _missing_index(error: NotFoundError) -> bool:
    body = error.body if isinstance(error.body, dict) else {}
    return bool(body.get("error")) and body.get("found") is None


class ProviderRepository:
    def __init__(self, es: AsyncElasticsearch, names: IndexNames) -> None:
        self._es = es
        self._names = names

    async def provider(self, npi: str) -> ProviderDoc | None:
        try:
            response = await self._es.get(index=self._names.alias("providers"), id=npi)
        except NotFoundError as error:
            if _missing_index(error):
                raise elasticsearch_unavailable("the provider index is not loaded") from error
            return None
        return cast(ProviderDoc, response["_source"])

    async def locations(self, npi: str) -> list[LocationDoc] | None:
        """The provider's locations, or None when the provider is not in the directory."""
        try:
            response = await self._es.search(
                index=self._names.alias("locations"),
                query={"term": {"npi": npi}},
                # The NPPES practice address ("nppes") first, then the DAC ones ("dac").
                sort=[{"source": "desc"}, {"id": "asc"}],
                size=MAX_LOCATIONS,
            )
        except NotFoundError as error:
            raise elasticsearch_unavailable("the location index is not loaded") from error
        hits: list[dict[str, Any]] = response["hits"]["hits"]
        if not hits and await self.provider(npi) is None:
            return None
        return [cast(LocationDoc, hit["_source"]) for hit in hits]

    async def ready(self) -> bool:
        """Elasticsearch answers and every alias exists."""
        aliases = ",".join(self._names.all_aliases())
        return bool(await self._es.indices.exists_alias(name=aliases))
