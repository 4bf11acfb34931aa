"""Bulk writing with bounded concurrency: each chunk of already-serialised actions is framed into
one NDJSON body and sent with ``es.bulk``.

Documents arrive as ``orjson`` bytes (action line, source line), so a chunk is one
``b"\\n".join``; the answer is filtered server-side to each item's status and error, and read item
by item only when it says ``errors: true`` (items come back in request order, so an item is
matched to its action by position). A whole request answered 429, 502, 503 or 504 is sent again
after a backoff, and so are the items answered 429 (only those); after the last retry a rejected
request raises and rejected items are failures. Any other failed item is a failure at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, islice
from operator import itemgetter
from typing import Any, TypeVar

import orjson
from elasticsearch import ApiError, AsyncElasticsearch

from core.es_client import OVERLOADED_STATUSES


@dataclass(slots=True)
class Origin:
    """Where a document came from, for the reject file."""

    source: str
    row: int
    npi: str


Action = tuple[bytes, bytes, Origin]  # (action line, source line, origin)

_T = TypeVar("_T")
_lines = itemgetter(0, 1)
# Every item keeps its status (so positions hold); the error only where there is one.
_FILTER = "errors,items.*.status,items.*.error"
REJECTED_ITEM_STATUS = 429


def action_lines(op_type: str, index: str) -> Callable[[str], bytes]:
    """The action line maker of one index: ``{"index":{"_index":...,"_id":<id>}}`` bytes."""
    head = orjson.dumps({op_type: {"_index": index, "_id": ""}}).removesuffix(b'""}}')
    return lambda doc_id: head + orjson.dumps(doc_id) + b"}}"


def index_action(index: str, doc_id: str, source: bytes, origin: Origin) -> Action:
    """Write this document whole."""
    return action_lines("index", index)(doc_id), source, origin


def delete_action(index: str, doc_id: str, origin: Origin) -> Action:
    """Delete a document (no source line: an empty line, which the bulk request skips)."""
    return action_lines("delete", index)(doc_id), b"", origin


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


@dataclass(frozen=True, slots=True)
class Backoff:
    """How rejected requests and items are retried: up to ``retries`` times per chunk, waiting
    ``initial_s``, then twice as long each time, never more than ``max_s``."""

    retries: int = 5
    initial_s: float = 0.5
    max_s: float = 10.0
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    def delay(self, retry: int) -> float:
        """The wait before retry number ``retry`` (1, 2, ...)."""
        return min(self.max_s, self.initial_s * 2.0 ** (retry - 1))


DEFAULT_BACKOFF = Backoff()


def chunked(items: Iterable[_T], size: int) -> Iterator[list[_T]]:
    """Consecutive lists of ``size`` items (the last one shorter)."""
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _body(actions: list[Action]) -> bytes:
    """The NDJSON body: every action and source line, each followed by a newline."""
    return b"\n".join(chain(chain.from_iterable(map(_lines, actions)), (b"",)))


def _failure(action: Action, outcome: dict[str, Any], status: int) -> Failure:
    header, _, origin = action
    meta = next(iter(orjson.loads(header).values()))
    error = outcome.get("error", {})
    reason = error.get("reason", str(error)) if isinstance(error, dict) else str(error)
    return Failure(str(meta.get("_index", "")), str(meta.get("_id", "")), status, reason, origin)


def _settle(
    sent: list[Action], answer: dict[str, Any], result: BulkResult, *, last: bool
) -> list[Action]:
    """Failed items of one answer into ``result``; returns the actions to send again."""
    items: list[dict[str, Any]] = answer.get("items", [])
    if len(items) != len(sent):  # never expected: but a short answer must not lose documents
        raise RuntimeError(f"bulk answered {len(items)} items for {len(sent)} actions")
    if not answer.get("errors"):
        return []
    again: list[Action] = []
    for action, item in zip(sent, items, strict=True):
        outcome = next(iter(item.values()))
        status = int(outcome.get("status", 500))
        if 200 <= status < 300:
            continue
        if status == REJECTED_ITEM_STATUS and not last:
            again.append(action)
        else:
            result.failed.append(_failure(action, outcome, status))
    return again


async def _send(
    es: AsyncElasticsearch, chunk: list[Action], result: BulkResult, backoff: Backoff
) -> None:
    pending = chunk
    for attempt in range(backoff.retries + 1):
        if attempt:
            await backoff.sleep(backoff.delay(attempt))
        last = attempt == backoff.retries
        body = _body(pending)  # bytes: the client's NDJSON serializer sends them as they are
        try:
            answer = await es.bulk(operations=body, filter_path=_FILTER)  # type: ignore[arg-type]
        except ApiError as error:
            if last or error.status_code not in OVERLOADED_STATUSES:
                raise
            continue
        pending = _settle(pending, answer.body, result, last=last)
        if not pending:
            return


async def bulk_index(
    es: AsyncElasticsearch,
    actions: Iterable[Action],
    *,
    chunk_size: int = 1000,
    concurrency: int = 2,
    backoff: Backoff = DEFAULT_BACKOFF,
) -> BulkResult:
    """Index ``actions`` with at most ``concurrency`` bulk requests in flight.

    Building the next chunk (CPU in this process) overlaps with Elasticsearch indexing the
    previous ones; rejections (429s) are retried with ``backoff``, other failures are returned.
    Connection errors and other errors of a whole request propagate.
    """
    # The transport would resend a 429/502/503/504 at once, without waiting, to a node that is
    # already overloaded: those statuses are retried here, with backoff. Connection errors are
    # still retried by the transport (its max_retries).
    es = es.options(retry_on_status=())
    result = BulkResult()
    in_flight: set[asyncio.Task[None]] = set()
    try:
        for chunk in chunked(actions, chunk_size):
            if len(in_flight) >= concurrency:
                done, in_flight = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    task.result()
            in_flight.add(asyncio.create_task(_send(es, chunk, result, backoff)))
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
