"""A loopback HTTP relay in front of the session's node that holds chosen requests: a client (a
load, an update, in this process or a child) stopped at an exact request, whatever the
machine's pace.

Every request is forwarded and its answer relayed back, except those ``holds`` matches once
``let_through`` of them have been forwarded: each of those waits, unsent, until ``release``
(then it is forwarded) or the relay closes (then it is answered 503, never sent) or is cut (as
a node gone: its connections reset, no new one accepted). ``held`` is set when the first one
waits; ``forwarded_bodies`` and ``held_bodies`` keep what the matching requests carried;
``settled`` waits until every forwarded request has its answer. ``until_held``: a child process
run against the relay, until it is held.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable, Mapping

import aiohttp
from aiohttp import web

MAX_BODY = 1 << 30
# Hop-by-hop and encoding headers: each side of the relay sets its own.
_NOT_FORWARDED = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "keep-alive"}
    | {"accept-encoding", "content-encoding"}
)
Matcher = Callable[[str, str], bool]  # (method, path) -> held
HANG_S = 600.0  # a guard against a hang, never a measure of speed


def _headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k.lower() not in _NOT_FORWARDED}


class HoldingRelay:
    def __init__(self, upstream: str, holds: Matcher, let_through: int = 0) -> None:
        self._upstream = upstream.rstrip("/")
        self._holds = holds
        self._let_through = let_through
        self._released = asyncio.Event()
        self._closing = False
        self._in_flight = 0
        self._answered = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self.held = asyncio.Event()
        self.forwarded_bodies: list[bytes] = []
        self.held_bodies: list[bytes] = []
        self._held_connections: list[asyncio.Transport] = []
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
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))

    async def close(self) -> None:
        """Stop serving; what is still held is answered 503, never sent."""
        self._closing = True
        self._released.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def cut(self) -> None:
        """The node gone: the held requests' connections reset, nothing accepted any more."""
        for transport in self._held_connections:
            transport.abort()
        await self.close()

    async def settled(self) -> None:
        """Until no forwarded request waits for its answer (Elasticsearch completes a request
        whose client went away: what was forwarded is all written once this returns)."""
        async with self._answered:
            await self._answered.wait_for(lambda: self._in_flight == 0)

    def release(self) -> None:
        """Forward the held requests, and every later one."""
        self._released.set()

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        if self._holds(request.method, request.path):
            if len(self.forwarded_bodies) >= self._let_through and not self._released.is_set():
                self.held_bodies.append(body)
                if request.transport is not None:
                    self._held_connections.append(request.transport)
                self.held.set()
                await self._released.wait()
            if self._closing:
                return web.Response(status=503)
            self.forwarded_bodies.append(body)
        assert self._session is not None
        self._in_flight += 1
        try:
            async with self._session.request(
                request.method,
                f"{self._upstream}{request.path_qs}",
                headers=_headers(request.headers),
                data=body,
            ) as upstream:
                payload = await upstream.read()
                status, headers = upstream.status, _headers(upstream.headers)
        finally:
            async with self._answered:
                self._in_flight -= 1
                self._answered.notify_all()
        return web.Response(status=status, headers=headers, body=payload)


async def until_held(relay: HoldingRelay, process: subprocess.Popen[str]) -> None:
    """Until the relay holds a request of ``process``; a failure saying so if it ends first."""
    held = asyncio.create_task(relay.held.wait())
    ended = asyncio.create_task(asyncio.to_thread(process.wait))
    try:
        async with asyncio.timeout(HANG_S):
            await asyncio.wait({held, ended}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        held.cancel()
    if not relay.held.is_set():
        raise AssertionError(f"it ended before a request was held: {process.communicate()}")
    ended.cancel()  # the thread itself waits on until the process ends
