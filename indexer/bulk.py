"""Bulk writing with bounded concurrency on top of the elasticsearch async helpers."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_streaming_bulk

Action = dict[str, Any]


@dataclass
class BulkResult:
    indexed: Counter[str] = field(default_factory=Counter)
    failed: list[tuple[str, str, str]] = field(default_factory=list)  # (index, id, reason)


def _chunks(actions: Iterable[Action], size: int) -> Iterator[list[Action]]:
    iterator = iter(actions)
    while chunk := list(islice(iterator, size)):
        yield chunk


async def _send(es: AsyncElasticsearch, chunk: list[Action], result: BulkResult) -> None:
    async for ok, item in async_streaming_bulk(
        es,
        chunk,
        chunk_size=len(chunk),
        raise_on_error=False,
        max_retries=5,
        initial_backoff=0.5,
        max_backoff=10,
    ):
        outcome = item.get("index", {})
        if ok:
            result.indexed[outcome.get("_index", "?")] += 1
        else:
            reason = outcome.get("error", {})
            text = reason.get("reason", str(reason)) if isinstance(reason, dict) else str(reason)
            result.failed.append((str(outcome.get("_index")), str(outcome.get("_id")), text))


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
        for task in in_flight:
            task.cancel()
    return result
