"""The change feed read: the records after a cursor, up to how far the last committed job took
the feed (core.change_log), filtered as a watch is."""

from __future__ import annotations

from typing import cast

from elasticsearch import AsyncElasticsearch

from core.change_log import ChangeDoc, answered, decode_cursor, encode_cursor
from core.documents import Json
from core.index_contract import CHANGE_FIELDS as F
from core.index_contract import IndexNames
from core.plans import canonical_bid_id
from service.changes.models import ChangePage, ChangesParams
from service.errors import ChangesGone, CursorNotFound
from service.storage import publication, search_whole

CHANGES_INDEX = "the change feed"


def changes_query(params: ChangesParams, after: int, through: int) -> Json:
    """The records numbered after ``after`` and up to ``through`` that match (pure)."""
    filters: list[Json] = [{"range": {F.seq: {"gt": after, "lte": through}}}]
    whose: list[Json] = []
    if params.npi:
        whose.append({"terms": {F.npi: list(params.npi)}})
    if params.bidId:
        whose.append({"terms": {F.bidId: [canonical_bid_id(b) or b for b in params.bidId]}})
    if whose:
        filters.append({"bool": {"should": whose, "minimum_should_match": 1}})
    if params.kind:
        filters.append({"terms": {F.kind: list(params.kind)}})
    return {
        "query": {"bool": {"filter": filters}},
        "sort": [{F.seq: "asc"}],
        "size": params.pageSize,
    }


async def read_changes(
    es: AsyncElasticsearch, names: IndexNames, params: ChangesParams
) -> ChangePage:
    record = await publication(es, names)
    through = int(record.get("changesThrough", 0)) if record else 0
    pruned = int(record.get("changesPrunedThrough", 0)) if record else 0
    after = pruned
    if params.since is not None:
        try:
            after = decode_cursor(params.since)
        except ValueError:
            raise CursorNotFound("this feed never gave the cursor `since`") from None
        if after < pruned:
            raise ChangesGone(after, pruned)
    if after >= through:
        return {"changes": [], "nextCursor": encode_cursor(max(after, through))}
    body = changes_query(params, after, through)
    hits = (await search_whole(es, names.changes(), body, CHANGES_INDEX))["hits"]["hits"]
    docs = [cast(ChangeDoc, hit["_source"]) for hit in hits]
    # A full page: more may follow it; else every match up to the mark is here.
    last = docs[-1]["seq"] if len(docs) == params.pageSize else through
    return {"changes": [answered(doc) for doc in docs], "nextCursor": encode_cursor(last)}
