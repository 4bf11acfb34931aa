"""Runs search bodies against the search alias, with point-in-time for cursor pages."""

from __future__ import annotations

from typing import Any

from elasticsearch import AsyncElasticsearch, NotFoundError

from core.index_contract import IndexNames
from service.errors import ProblemError, elasticsearch_unavailable

PIT_KEEP_ALIVE = "5m"


class SearchBackend:
    def __init__(self, es: AsyncElasticsearch, names: IndexNames) -> None:
        self._es = es
        self._alias = names.alias("search")

    async def search(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            response = await self._es.search(index=self._alias, body=body)
        except NotFoundError as error:
            raise elasticsearch_unavailable("the search index is not loaded") from error
        return dict(response.body)

    async def search_in_time(self, body: dict[str, Any], pit: str | None) -> dict[str, Any]:
        """A cursor page: in the cursor's point in time, or a new one for its first page."""
        if pit is None:
            try:
                opened = await self._es.open_point_in_time(
                    index=self._alias, keep_alive=PIT_KEEP_ALIVE
                )
            except NotFoundError as error:
                raise elasticsearch_unavailable("the search index is not loaded") from error
            pit = str(opened["id"])
        try:
            response = await self._es.search(
                body={**body, "pit": {"id": pit, "keep_alive": PIT_KEEP_ALIVE}}
            )
        except NotFoundError as error:
            raise ProblemError(
                400,
                "cursor_expired",
                "Bad Request",
                "the cursor has expired (5 minutes without use); start again without it",
                errors=[{"field": "cursor", "message": "expired"}],
            ) from error
        return dict(response.body)
