"""Bulk writing with bounded concurrency on top of the elasticsearch async helpers.

Documents arrive already serialised (``orjson`` bytes for the action and source lines), so the
helper only frames them; responses are filtered server-side to what failure handling needs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from operator import itemgetter
from typing import Any

import orjson
from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_streaming_bulk


@dataclass(slots=True)
class Origin:
    """Where a document came from, for the reject file."""

    source: str
    row: int
    npi: str


Action = tuple[bytes, bytes, Origin]  # (action line, source line, origin)

# The helper calls this per action to get its (action line, source line): a C-level getter.
_lines = itemgetter(0, 1)
_FILTER = "items.*._index,items.*._id,items.*.status,items.*.error"


def action_lines(op_type: str, index: str) -> Callable[[str], bytes]:
    """The action line maker of one index: ``{"index":{"_index":...,"_id":<id>}}`` bytes."""
    head = orjson.dumps({op_type: {"_index": index, "_id": ""}}).removesuffix(b'""}}')
    return lambda doc_id: head + orjson.dumps(doc_id) + b"}}"


@dataclass(slots=True)
class Failure:
    index: str
    doc_id: str
    status: int
    reason: str
    origin: Origin | None


@dataclass
class BulkResult:
    failed: list[Failure] = field(default_factory=list)


def _chunks(actions: Iterable[Action], size: int) -> Iterator[list[Action]]:
    iterator = iter(actions)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _failure(item: dict[str, Any], origins: dict[tuple[str, str], Origin]) -> Failure:
    outcome = next(iter(item.values()))
    index, doc_id = str(outcome.get("_index")), str(outcome.get("_id"))
    error = outcome.get("error", {})
    reason = error.get("reason", str(error)) if isinstance(error, dict) else str(error)
    status = int(outcome.get("status", 0))
    return Failure(index, doc_id, status, reason, origins.get((index, doc_id)))


async def _send(es: AsyncElasticsearch, chunk: list[Action], result: BulkResult) -> None:
    failed: list[dict[str, Any]] = []
    lines: list[Any] = chunk  # the helper's types know dict actions only; _lines frames ours
    async for _, item in async_streaming_bulk(
        es,
        lines,
        chunk_size=len(chunk),
        expand_action_callback=_lines,
        raise_on_error=False,
        yield_ok=False,
        max_retries=5,
        initial_backoff=0.5,
        max_backoff=10,
        filter_path=_FILTER,
    ):
        failed.append(item)
    if failed:  # rare: only then map documents back to their source rows
        origins = {}
        for header, _, origin in chunk:
            meta = next(iter(orjson.loads(header).values()))
            origins[meta["_index"], meta["_id"]] = origin
        result.failed.extend(_failure(item, origins) for item in failed)


async def bulk_index(
    es: AsyncElasticsearch,
    actions: Iterable[Action],
    *,
    chunk_size: int = 1000,
    concurrency: int = 2,
) -> BulkResult:
    """Index ``actions`` with at most ``concurrency`` bulk requests in flight.

    Building the next chunk (CPU in this process) overlaps with Elasticsearch indexing the
    previous ones; 429s are retried with backoff by the helper, other failures are returned.
    """
    result = BulkResult()
    in_flight: set[asyncio.Task[None]] = set()
    try:
        for chunk in _chunks(actions, chunk_size):
            if len(in_flight) >= concurrency:
                done, in_flight = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    task.result()
            in_flight.add(asyncio.create_task(_send(es, chunk, result)))
            await asyncio.sleep(0)  # let the request go out before building the next chunk
        if in_flight:
            for outcome in await asyncio.gather(*in_flight, return_exceptions=True):
                if isinstance(outcome, BaseException):
                    raise outcome
    finally:
        # Let requests already sent finish rather than cancel them: Elasticsearch keeps executing
        # a bulk after its client goes away, and would re-create an index deleted meanwhile.
        await asyncio.gather(*in_flight, return_exceptions=True)
    return result
