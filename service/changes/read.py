"""The change feed read: the records after a cursor, up to how far the last committed job took
the feed (core.change_log), filtered as a watch is."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Followed:
    """What a reader follows: a change matches when its NPI is among ``npis`` or its plan among
    ``bid_ids`` (every change when neither is given); ``kinds``, when given, narrows."""

    npis: Sequence[str]
    bid_ids: Sequence[str]
    kinds: Sequence[str]


def changes_query(followed: Followed, after: int, through: int, size: int) -> Json:
    """The records numbered after ``after`` and up to ``through`` that match (pure)."""
    filters: list[Json] = [{"range": {F.seq: {"gt": after, "lte": through}}}]
    whose: list[Json] = []
    if followed.npis:
        whose.append({"terms": {F.npi: list(followed.npis)}})
    if followed.bid_ids:
        whose.append({"terms": {F.bidId: [canonical_bid_id(b) or b for b in followed.bid_ids]}})
    if whose:
        filters.append({"bool": {"should": whose, "minimum_should_match": 1}})
    if followed.kinds:
        filters.append({"terms": {F.kind: list(followed.kinds)}})
    return {"query": {"bool": {"filter": filters}}, "sort": [{F.seq: "asc"}], "size": size}


async def matching_changes(
    es: AsyncElasticsearch,
    names: IndexNames,
    followed: Followed,
    after: int,
    through: int,
    size: int,
) -> list[ChangeDoc]:
    """The first ``size`` records after ``after`` up to ``through`` that ``followed`` matches."""
    body = changes_query(followed, after, through, size)
    hits = (await search_whole(es, names.changes(), body, CHANGES_INDEX))["hits"]["hits"]
    return [cast(ChangeDoc, hit["_source"]) for hit in hits]


async def changes_through(es: AsyncElasticsearch, names: IndexNames) -> tuple[int, int]:
    """How far the feed goes (the last committed job's mark), and up to where it was pruned."""
    record = await publication(es, names)
    if record is None:
        return 0, 0
    return int(record.get("changesThrough", 0)), int(record.get("changesPrunedThrough", 0))


async def read_changes(
    es: AsyncElasticsearch, names: IndexNames, params: ChangesParams
) -> ChangePage:
    through, pruned = await changes_through(es, names)
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
    followed = Followed(params.npi, params.bidId, params.kind)
    docs = await matching_changes(es, names, followed, after, through, params.pageSize)
    # A full page: more may follow it; else every match up to the mark is here.
    last = docs[-1]["seq"] if len(docs) == params.pageSize else through
    return {"changes": [answered(doc) for doc in docs], "nextCursor": encode_cursor(last)}
