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
from collections import deque
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
# Actions built between two turns of the event loop, which reads answers and sends the next
# request of an index whose previous one was answered meanwhile.
_YIELD_EVERY = 64
_AHEAD = 2  # chunks an index may have built behind its request in flight


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


def _index_of(header: bytes) -> bytes:
    """The index an action line names (``action_lines`` writes ``_index`` before ``_id``)."""
    return header.partition(b'"_index":')[2].partition(b",")[0]


class _Lane:
    """One index's writer: its chunks sent one request at a time, in order."""

    def __init__(self, send: Callable[[list[Action]], Awaitable[None]]) -> None:
        self._send = send
        self._chunks: deque[list[Action]] = deque()
        self._sent = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def add(self, chunk: list[Action]) -> None:
        self._chunks.append(chunk)
        if self.task is None or self.task.done():
            if self.task is not None:
                self.task.result()  # a failed request ends the load here
            self.task = asyncio.create_task(self._write())

    async def _write(self) -> None:
        while self._chunks:
            await self._send(self._chunks[0])
            self._chunks.popleft()
            self._sent.set()

    async def room(self, ahead: int) -> None:
        """Until at most ``ahead`` chunks wait behind the request in flight."""
        while len(self._chunks) > ahead + 1 and self.task is not None and not self.task.done():
            self._sent.clear()
            sent = asyncio.ensure_future(self._sent.wait())
            await asyncio.wait({self.task, sent}, return_when=asyncio.FIRST_COMPLETED)
            sent.cancel()
        if self.task is not None and self.task.done():
            self.task.result()


async def bulk_index(
    es: AsyncElasticsearch,
    actions: Iterable[Action],
    *,
    chunk_size: int = 1000,
    concurrency: int = 2,
    backoff: Backoff = DEFAULT_BACKOFF,
) -> BulkResult:
    """Index ``actions``, each index's in chunks of ``chunk_size``, with at most ``concurrency``
    bulk requests in flight and at most one per index.

    One writer per index: Elasticsearch indexes a shard fastest from one thread (one segment
    buffer, not one per concurrent request to merge later: ~10 µs of its CPU per provider at
    134k, issue 35), while the indices are written side by side. Building the next chunks (CPU
    in this process) overlaps with Elasticsearch indexing the ones sent, up to ``_AHEAD``
    chunks per index; rejections (429s) are retried with ``backoff``, other failures are
    returned. Connection errors and other errors of a whole request propagate.
    """
    # The transport would resend a 429/502/503/504 at once, without waiting, to a node that is
    # already overloaded: those statuses are retried here, with backoff. Connection errors are
    # still retried by the transport (its max_retries).
    es = es.options(retry_on_status=())
    result = BulkResult()
    slots = asyncio.Semaphore(concurrency)

    async def send(chunk: list[Action]) -> None:
        async with slots:
            await _send(es, chunk, result, backoff)

    lanes: dict[bytes, _Lane] = {}
    waiting: dict[bytes, list[Action]] = {}  # per index, the chunk being filled
    try:
        for count, action in enumerate(actions, 1):
            index = _index_of(action[0])
            chunk = waiting.setdefault(index, [])
            chunk.append(action)
            if len(chunk) >= chunk_size:
                del waiting[index]
                lane = lanes.setdefault(index, _Lane(send))
                lane.add(chunk)
                await lane.room(_AHEAD)
            elif not count % _YIELD_EVERY:
                await asyncio.sleep(0)  # answers are read and the next requests go out
        for index, chunk in waiting.items():
            lanes.setdefault(index, _Lane(send)).add(chunk)
        tasks = [lane.task for lane in lanes.values() if lane.task is not None]
        for outcome in await asyncio.gather(*tasks, return_exceptions=True):
            if isinstance(outcome, BaseException):
                raise outcome
    finally:
        # Let requests already sent finish rather than cancel them: Elasticsearch keeps executing
        # a bulk after its client goes away, and would re-create an index deleted meanwhile.
        await asyncio.gather(
            *(lane.task for lane in lanes.values() if lane.task is not None),
            return_exceptions=True,
        )
    return result
