"""The watches and deliveries indices (core.watches): each read and write of them.

A conditional write (``if_seq_no``/``if_primary_term``) is how a process claims a watch and
how it records what its claim did: a write that lost the race is told (``False``), never
applied over another's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from elasticsearch import AsyncElasticsearch, ConflictError, NotFoundError
from elasticsearch.helpers import async_bulk, async_scan

from core.index_contract import ATTEMPT_FIELDS, UNVERSIONED_SETTINGS, WATCH_FIELDS, IndexNames
from core.watches import AttemptDoc, WatchDoc
from service.storage import elasticsearch_errors

WATCHES_INDEX = "the watches index"
MAX_LISTED_ATTEMPTS = 100


@dataclass(frozen=True)
class Stored:
    """A watch as read, with what a conditional write of it needs."""

    doc: WatchDoc
    seq_no: int
    primary_term: int


async def ensure_indices(es: AsyncElasticsearch, names: IndexNames) -> None:
    """The watches and deliveries indices, made on first use (one shard each; small)."""
    with elasticsearch_errors(WATCHES_INDEX):
        for index, fields in (
            (names.watches(), WATCH_FIELDS),
            (names.deliveries(), ATTEMPT_FIELDS),
        ):
            await es.options(ignore_status=400).indices.create(
                index=index, settings=UNVERSIONED_SETTINGS, mappings=fields.mapping()
            )


async def count_watches(es: AsyncElasticsearch, names: IndexNames, subject: str) -> int:
    with elasticsearch_errors(WATCHES_INDEX):
        found = await es.count(
            index=names.watches(), query={"term": {WATCH_FIELDS.subject: subject}}
        )
    return int(found["count"])


async def put_watch(es: AsyncElasticsearch, names: IndexNames, doc: WatchDoc) -> None:
    with elasticsearch_errors(WATCHES_INDEX):
        await es.index(
            index=names.watches(), id=doc["id"], document=doc, op_type="create", refresh=True
        )


async def read_watch(es: AsyncElasticsearch, names: IndexNames, watch_id: str) -> Stored | None:
    with elasticsearch_errors(WATCHES_INDEX):
        try:
            found = await es.get(index=names.watches(), id=watch_id)
        except NotFoundError:
            return None
    return Stored(cast(WatchDoc, found["_source"]), found["_seq_no"], found["_primary_term"])


async def subjects_watches(
    es: AsyncElasticsearch, names: IndexNames, subject: str, most: int
) -> list[WatchDoc]:
    body = {
        "query": {"term": {WATCH_FIELDS.subject: subject}},
        "sort": [{WATCH_FIELDS.createdAt: "asc"}, {WATCH_FIELDS.id: "asc"}],
        "size": most,
    }
    with elasticsearch_errors(WATCHES_INDEX):
        try:
            found = await es.search(index=names.watches(), body=body)
        except NotFoundError:
            return []
    return [cast(WatchDoc, hit["_source"]) for hit in found["hits"]["hits"]]


async def remove_watch(es: AsyncElasticsearch, names: IndexNames, watch_id: str) -> None:
    """The watch and its attempts, deleted (a delivery under way finds it gone)."""
    with elasticsearch_errors(WATCHES_INDEX):
        await es.options(ignore_status=404).delete(index=names.watches(), id=watch_id, refresh=True)
        index = names.deliveries()
        query = {"query": {"term": {ATTEMPT_FIELDS.watchId: watch_id}}, "_source": False}
        found = async_scan(es, index=index, query=query, size=1000)
        actions = (
            {"_op_type": "delete", "_index": index, "_id": hit["_id"]} async for hit in found
        )
        await async_bulk(es, actions, chunk_size=1000, raise_on_error=False)


async def attempts_of(es: AsyncElasticsearch, names: IndexNames, watch_id: str) -> list[AttemptDoc]:
    body = {
        "query": {"term": {ATTEMPT_FIELDS.watchId: watch_id}},
        "sort": [{ATTEMPT_FIELDS.at: "desc"}, {ATTEMPT_FIELDS.attempt: "desc"}],
        "size": MAX_LISTED_ATTEMPTS,
    }
    with elasticsearch_errors(WATCHES_INDEX):
        await es.indices.refresh(index=names.deliveries())
        found = await es.search(index=names.deliveries(), body=body)
    return [cast(AttemptDoc, hit["_source"]) for hit in found["hits"]["hits"]]


async def due_watches(
    es: AsyncElasticsearch, names: IndexNames, through: int, now: str, most: int
) -> list[Stored]:
    """Active watches behind the feed's mark, due and not held by a live lease: as every write
    before the round left them (a refresh first; a stale copy would only lose its claim)."""
    f = WATCH_FIELDS
    body = {
        "query": {
            "bool": {
                "filter": [
                    {"term": {f.state: "active"}},
                    {"range": {f.deliveredThrough: {"lt": through}}},
                    {"range": {f.nextTryAt: {"lte": now}}},
                    {"range": {f.leaseUntil: {"lte": now}}},
                ]
            }
        },
        "sort": [{f.nextTryAt: "asc"}],
        "size": most,
        "seq_no_primary_term": True,
    }
    try:
        await es.indices.refresh(index=names.watches())
        found = await es.search(index=names.watches(), body=body)
    except NotFoundError:
        return []
    return [
        Stored(cast(WatchDoc, hit["_source"]), hit["_seq_no"], hit["_primary_term"])
        for hit in found["hits"]["hits"]
    ]


async def write_if_unchanged(
    es: AsyncElasticsearch, names: IndexNames, stored: Stored, doc: WatchDoc
) -> Stored | None:
    """``doc`` written over ``stored`` unless the watch changed or went since it was read."""
    try:
        written = await es.index(
            index=names.watches(),
            id=doc["id"],
            document=doc,
            if_seq_no=stored.seq_no,
            if_primary_term=stored.primary_term,
        )
    except (ConflictError, NotFoundError):
        return None
    return Stored(doc, written["_seq_no"], written["_primary_term"])


async def record_attempt(es: AsyncElasticsearch, names: IndexNames, attempt: AttemptDoc) -> None:
    doc_id = f"{attempt['webhookId']}.{attempt['attempt']}"
    await es.index(index=names.deliveries(), id=doc_id, document=attempt)
