"""Runs search bodies against the search alias, with a point in time for cursor pages."""

from __future__ import annotations

from typing import Any

from elasticsearch import AsyncElasticsearch, NotFoundError

from core.index_contract import IndexNames
from service.errors import BackendUnavailable, CursorExpired
from service.storage import (
    ALLOW_PARTIAL_RESULTS,
    OVERLOADED,
    WHOLE_ANSWERS_ONLY,
    elasticsearch_errors,
)

PIT_KEEP_ALIVE = "5m"
Json = dict[str, Any]
SEARCH_INDEX = "the search index"


async def search(es: AsyncElasticsearch, names: IndexNames, body: Json) -> Json:
    with elasticsearch_errors(SEARCH_INDEX):
        response = await es.search(
            index=names.alias("search"),
            body=body,
            allow_partial_search_results=ALLOW_PARTIAL_RESULTS,
        )
    return dict(response.body)


async def search_in_time(
    es: AsyncElasticsearch, names: IndexNames, body: Json, pit: str | None
) -> Json:
    """A cursor page: in the cursor's point in time, or a new one for its first page.
    CursorExpired when the point in time is gone."""
    with elasticsearch_errors(SEARCH_INDEX):
        if pit is None:
            opened = await es.open_point_in_time(
                index=names.alias("search"), keep_alive=PIT_KEEP_ALIVE
            )
            pit = str(opened["id"])
        try:
            response = await es.search(
                body={**body, "pit": {"id": pit, "keep_alive": PIT_KEEP_ALIVE}},
                allow_partial_search_results=ALLOW_PARTIAL_RESULTS,
            )
        except NotFoundError as error:
            raise CursorExpired() from error
    return dict(response.body)


async def msearch(es: AsyncElasticsearch, names: IndexNames, bodies: list[Json]) -> list[Json]:
    """Several small searches in one round trip; one answer per body, in order."""
    with elasticsearch_errors(SEARCH_INDEX):
        response = await es.msearch(
            index=names.alias("search"),
            searches=[part for body in bodies for part in (WHOLE_ANSWERS_ONLY, body)],
        )
    answers = [dict(answer) for answer in response["responses"]]
    failed = [answer for answer in answers if "error" in answer]
    if any(int(answer.get("status", 500)) in OVERLOADED for answer in failed):
        raise BackendUnavailable("a follow-up search could not read every shard")
    if failed:
        raise RuntimeError(f"a follow-up search failed: {failed[0]['error']}")
    return answers
