"""A loopback HTTP relay in front of an Elasticsearch node that plays bulk rejections.

Every request is forwarded to the upstream node and its answer relayed back, except what it is
told to do with ``_bulk`` requests (tests of indexer/write/bulk.py):
- ``reject_requests(count, status)``: the next ``count`` bulk requests are answered with
  ``status`` (429 by default) as a whole, without reaching the node;
- ``reject_items(ids, times)``: in the next ``times`` bulk requests that carry them, the items of
  these document ids are answered 429 (``es_rejected_execution_exception``) although the node
  really indexed them, so a client that sends them again must do so idempotently;
- ``hold_s``: every bulk answer is held that long (requests in flight at a known moment).
It records the document ids of every bulk request (``bulk_ids``), how many were in flight and
the Authorization header of every request (``authorizations``, None where there was none).

Without an upstream it answers every bulk request with a canned success (an item 201 per
action, with an index name and id if the filter path asks for them; no node involved), to time a
client alone: ``python -m devtools.bulk_relay`` prints its
URL and serves until it is terminated (bench/bulk_framing_bench.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections import Counter
from collections.abc import Iterable
from typing import Any, NamedTuple

import aiohttp
import orjson
from aiohttp import web

MAX_BODY = 1 << 30
# Hop-by-hop and encoding headers: each side of the relay sets its own.
_NOT_FORWARDED = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "keep-alive"}
    | {"accept-encoding", "content-encoding"}
)
_REJECTED = {"type": "es_rejected_execution_exception", "reason": "rejected by the bulk relay"}
_CANNED_ITEM = b'{"index":{"status":201}}'
# What a node answers per item when the filter keeps _index and _id too (a load's sizes).
_CANNED_ITEM_WITH_IDS = (
    b'{"index":{"_index":"provider-directory-providers-20260101t000000000000",'
    b'"_id":"1234567890","status":201}}'
)
_PRODUCT = {"X-Elastic-Product": "Elasticsearch"}  # the client checks it on successes


class _Answer(NamedTuple):
    status: int
    headers: dict[str, str]
    body: bytes

    def response(self) -> web.Response:
        return web.Response(status=self.status, headers=self.headers, body=self.body)


def _headers(headers: Any) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k.lower() not in _NOT_FORWARDED}


def action_ids(body: bytes) -> list[str]:
    """The document id of every action of an NDJSON bulk body, in order."""
    ids: list[str] = []
    lines = iter(body.splitlines())
    for line in lines:
        if not line:
            continue
        ((op_type, meta),) = orjson.loads(line).items()
        ids.append(str(meta.get("_id", "")))
        if op_type != "delete":
            next(lines, None)  # its source line
    return ids


def _whole_rejection(status: int) -> _Answer:
    cause = _REJECTED if status == 429 else {"type": "relay_error", "reason": f"relay {status}"}
    body = orjson.dumps({"error": {"root_cause": [cause], **cause}, "status": status})
    return _Answer(status, {"Content-Type": "application/json"}, body)


def _with_rejected_items(answer: _Answer, positions: list[int]) -> _Answer:
    parsed = orjson.loads(answer.body)
    items = parsed["items"]
    for position in positions:
        ((op_type, outcome),) = items[position].items()
        kept = {key: outcome[key] for key in ("_index", "_id") if key in outcome}
        items[position] = {op_type: {**kept, "status": 429, "error": _REJECTED}}
    parsed["errors"] = True
    return answer._replace(body=orjson.dumps(parsed))


def _canned(body: bytes, filter_path: str) -> _Answer:
    count = body.count(b"\n") // 2  # index actions: an action line and a source line each
    item = _CANNED_ITEM_WITH_IDS if "_id" in filter_path else _CANNED_ITEM
    items = b",".join([item] * count)
    payload = b'{"errors":false,"items":[' + items + b"]}"
    return _Answer(200, {"Content-Type": "application/json", **_PRODUCT}, payload)


class BulkRelay:
    def __init__(self, upstream: str | None) -> None:
        self._upstream = upstream.rstrip("/") if upstream else None
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self._request_rejections: list[int] = []
        self._item_rejections: Counter[str] = Counter()
        self.hold_s = 0.0
        self.bulk_ids: list[list[str]] = []
        self.authorizations: list[str | None] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.port = self._runner.addresses[0][1]
        if self._upstream is not None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=300))

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._session is not None:
            await self._session.close()
            self._session = None

    def reject_requests(self, count: int, status: int = 429) -> None:
        """Answer the next ``count`` bulk requests with ``status``, without forwarding them."""
        self._request_rejections += [status] * count

    def reject_items(self, ids: Iterable[str], times: int = 1) -> None:
        """Answer the items of ``ids`` 429 in the next ``times`` bulk requests carrying them."""
        for doc_id in ids:
            self._item_rejections[doc_id] += times

    async def _handle(self, request: web.Request) -> web.Response:
        self.authorizations.append(request.headers.get("Authorization"))
        body = await request.read()
        if not request.path.endswith("/_bulk"):
            return (await self._forward(request, body)).response()
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return (await self._bulk(request, body)).response()
        finally:
            self.in_flight -= 1

    async def _bulk(self, request: web.Request, body: bytes) -> _Answer:
        if self._upstream is None:
            return _canned(body, request.query.get("filter_path", ""))
        ids = action_ids(body)
        self.bulk_ids.append(ids)
        if self.hold_s:
            await asyncio.sleep(self.hold_s)
        if self._request_rejections:
            return _whole_rejection(self._request_rejections.pop(0))
        answer = await self._forward(request, body)
        rejected = [pos for pos, doc_id in enumerate(ids) if self._item_rejections[doc_id] > 0]
        if answer.status != 200 or not rejected:
            return answer
        for position in rejected:
            self._item_rejections[ids[position]] -= 1
        return _with_rejected_items(answer, rejected)

    async def _forward(self, request: web.Request, body: bytes) -> _Answer:
        if self._session is None:
            return _Answer(404, {"Content-Type": "application/json"}, b'{"error":"bulk only"}')
        async with self._session.request(
            request.method,
            f"{self._upstream}{request.path_qs}",
            headers=_headers(request.headers),
            data=body,
        ) as upstream:
            return _Answer(upstream.status, _headers(upstream.headers), await upstream.read())


async def _serve(upstream: str | None) -> None:
    relay = BulkRelay(upstream)
    await relay.start()
    print(relay.url, flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await relay.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--upstream", help="the node to relay to (default: canned successes)")
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(args.upstream))


if __name__ == "__main__":
    main()
