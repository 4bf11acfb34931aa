"""The change feed's writer (core.change_log): each job records what it changed, numbered in
commit order, and the feed counts them once the job commits.

One job at a time holds a prefix (indexer.lock), so a job numbers its records on from the
highest one. They count from the publication record the job writes when it finishes
(``changesThrough``), never before: a reader stops at that mark. Records an update wrote before
it failed describe documents it wrote whole (each batch's records follow its writes), which
become visible as it fails (indexer.update.live_version): the next job counts them with its
own. A load's or rollback's (their data never served) are removed.

Records older than the retention (``PD_CHANGES_RETENTION_DAYS``, default 400) are removed when a
job commits; the publication says up to where (``changesPrunedThrough``), so a cursor from
before it is told it is too old (410) rather than silently skipping what was removed.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from elasticsearch import AsyncElasticsearch, NotFoundError
from elasticsearch.helpers import async_bulk, async_scan

from core.change_log import Change, ChangeDoc
from core.changes import instant
from core.index_contract import CHANGE_FIELDS, UNVERSIONED_SETTINGS, WATCH_FIELDS, IndexNames
from core.publication import PUBLICATION_ID

F = CHANGE_FIELDS
UPDATE = "update"  # the job kind whose uncommitted records the next job counts


async def ensure_index(es: AsyncElasticsearch, names: IndexNames) -> None:
    """The prefix's change index, created on first use: one shard (a refresh shows a job's
    records all at once), numbered records sorted by ``seq``."""
    if await es.indices.exists(index=names.changes()):
        return
    await es.indices.create(
        index=names.changes(),
        settings=UNVERSIONED_SETTINGS,
        mappings=F.mapping(),
    )


async def published_marks(es: AsyncElasticsearch, names: IndexNames) -> tuple[int, int]:
    """(how far the feed goes, up to where it was pruned) as the publication record says."""
    try:
        found = await es.get(index=names.publication(), id=PUBLICATION_ID)
    except NotFoundError:
        return 0, 0
    record: dict[str, Any] = found["_source"]
    return int(record.get("changesThrough", 0)), int(record.get("changesPrunedThrough", 0))


async def _delete(es: AsyncElasticsearch, names: IndexNames, query: dict[str, Any]) -> None:
    """The records ``query`` matches, deleted (no delete-by-query: the distribution this runs on
    may lack the reindex module, DESIGN 4)."""
    index = names.changes()
    found = async_scan(es, index=index, query={"query": query, "_source": False}, size=5000)
    actions = ({"_op_type": "delete", "_index": index, "_id": hit["_id"]} async for hit in found)
    await async_bulk(es, actions, chunk_size=5000, raise_on_error=False)
    await es.indices.refresh(index=index)


class ChangeLog:
    """The records of one job: ``begin`` it once the job holds the lock, ``record`` what each
    written batch changed, ``commit`` it before the publication record is written."""

    def __init__(self, es: AsyncElasticsearch, names: IndexNames, job: str, last: int) -> None:
        self._es, self._names, self._job = es, names, job
        self._last = last  # the highest number given
        self.recorded = 0

    @classmethod
    async def begin(cls, es: AsyncElasticsearch, names: IndexNames, kind: str) -> ChangeLog:
        await ensure_index(es, names)
        await es.indices.refresh(index=names.changes())
        committed, _ = await published_marks(es, names)
        past = {"range": {F.seq: {"gt": committed}}}
        # An update's uncommitted records tell what became visible as it failed: kept.
        kept = [{"prefix": {F.job: f"{UPDATE}:"}}]
        await _delete(es, names, {"bool": {"filter": [past], "must_not": kept}})
        highest = await es.search(
            index=names.changes(), size=1, sort=[{F.seq: "desc"}], source=False, query=past
        )
        hits = highest["hits"]["hits"]
        last = int(hits[0]["sort"][0]) if hits else committed
        return cls(es, names, f"{kind}:{uuid.uuid4().hex}", last)

    async def record(self, changes: Iterable[Change], at: str) -> None:
        """Numbered on from the last, stamped with the job's instant, written (not yet
        counted)."""
        numbered = list(zip(itertools.count(self._last + 1), changes, strict=False))
        if not numbered:
            return
        docs: list[ChangeDoc] = [
            cast(ChangeDoc, {"id": str(seq), "at": at, **change, "seq": seq, "job": self._job})
            for seq, change in numbered
        ]
        actions = ({"_index": self._names.changes(), "_id": d["id"], "_source": d} for d in docs)
        await async_bulk(self._es, actions, chunk_size=2000, max_retries=3)
        self._last = numbered[-1][0]
        self.recorded += len(numbered)

    async def commit(self, retention_days: int, now: datetime | None = None) -> dict[str, int]:
        """Every record visible, those past the retention removed: the marks the publication
        record carries (``changesThrough``, ``changesPrunedThrough``)."""
        index = self._names.changes()
        await self._es.indices.refresh(index=index)
        _, pruned = await published_marks(self._es, self._names)
        cutoff = instant((now or datetime.now(UTC)) - timedelta(days=retention_days))
        old = {"range": {F.at: {"lt": cutoff}}}
        newest_old = await self._es.search(
            index=index, size=1, sort=[{F.seq: "desc"}], source=False, query=old
        )
        hits = newest_old["hits"]["hits"]
        if hits:
            pruned = max(pruned, int(hits[0]["sort"][0]))
            await _delete(self._es, self._names, {"range": {F.seq: {"lte": pruned}}})
        return {"changesThrough": self._last, "changesPrunedThrough": pruned}


async def delivery_backlog(
    es: AsyncElasticsearch, names: IndexNames, through: int
) -> tuple[int, int, int] | None:
    """How many watches (core.watches) there are, how many have changes up to ``through`` still
    to deliver, and how many are failing; None when nobody made a watch."""
    w = WATCH_FIELDS
    aggs: dict[str, Any] = {
        "pending": {"filter": {"range": {w.deliveredThrough: {"lt": through}}}},
        "failing": {"filter": {"term": {w.state: "failing"}}},
    }
    try:
        found = await es.search(index=names.watches(), size=0, aggs=aggs, track_total_hits=True)
    except NotFoundError:
        return None
    counts = found["aggregations"]
    return (
        int(found["hits"]["total"]["value"]),
        int(counts["pending"]["doc_count"]),
        int(counts["failing"]["doc_count"]),
    )


async def keys_recorded_after(
    es: AsyncElasticsearch, names: IndexNames, seq: int
) -> list[str] | None:
    """The providers named by the records numbered after ``seq``, committed or not (those of
    an update that failed too); None when some of them were pruned."""
    _, pruned = await published_marks(es, names)
    if pruned > seq:
        return None
    if not await es.indices.exists(index=names.changes()):
        return []
    await es.indices.refresh(index=names.changes())
    keys: list[str] = []
    composite: dict[str, Any] = {"size": 10_000, "sources": [{"key": {"terms": {"field": F.npi}}}]}
    while True:
        found = await es.search(
            index=names.changes(),
            size=0,
            query={"range": {F.seq: {"gt": seq}}},
            aggs={"keys": {"composite": composite}},
        )
        told = found["aggregations"]["keys"]
        keys += [bucket["key"]["key"] for bucket in told["buckets"]]
        if not told["buckets"] or "after_key" not in told:
            return keys
        composite = {**composite, "after": told["after_key"]}
