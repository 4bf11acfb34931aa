"""The search index's reads: searches, cursor pages in a point in time, multi-searches and
documents by id."""

from __future__ import annotations

from collections.abc import Sequence

from elasticsearch import AsyncElasticsearch, NotFoundError

from core.documents import Json
from core.index_contract import IndexNames
from service.errors import CursorExpired
from service.search_kit.limits import CURSOR_LIFE_MINUTES
from service.storage import (
    ALLOW_PARTIAL_RESULTS,
    WHOLE_ANSWERS_ONLY,
    elasticsearch_errors,
    multi_search,
    search_whole,
)

PIT_KEEP_ALIVE = f"{CURSOR_LIFE_MINUTES}m"
SEARCH_INDEX = "the search index"


async def search(es: AsyncElasticsearch, names: IndexNames, body: Json) -> Json:
    return await search_whole(es, names.alias("search"), body, SEARCH_INDEX)


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
        except NotFoundError as error:  # the point in time, not the index (opened above)
            raise CursorExpired(CURSOR_LIFE_MINUTES) from error
    return dict(response.body)


async def msearch(es: AsyncElasticsearch, names: IndexNames, bodies: list[Json]) -> list[Json]:
    """Several small searches in one round trip; one answer per body, in order."""
    searches = [part for body in bodies for part in (WHOLE_ANSWERS_ONLY, body)]
    return await multi_search(es, searches, SEARCH_INDEX, index=names.alias("search"))


async def documents(
    es: AsyncElasticsearch, names: IndexNames, ids: list[str], fields: Sequence[str]
) -> list[Json]:
    """These documents' ``fields`` as hits, in that order (those found)."""
    if not ids:
        return []
    with elasticsearch_errors(SEARCH_INDEX):
        response = await es.mget(
            index=names.alias("search"), ids=ids, source_includes=list(fields), realtime=False
        )
    return [{"_source": doc["_source"]} for doc in response["docs"] if doc.get("found")]
