"""A webhook receiver on loopback for the tests: it keeps every request it gets and answers
each as the test scripted (a status, or no answer at all)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from aiohttp import web

HANG = 0  # a scripted "answer": none (the request is held until the receiver stops)


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """``script``: the answers to the next requests, in order; then ``otherwise``."""

    script: list[int] = field(default_factory=list)
    otherwise: int = 204
    got: list[Received] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    base: str = ""
    _stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def handle(self, request: web.Request) -> web.Response:
        self.got.append(Received(request.path, dict(request.headers), await request.read()))
        self.arrived.set()
        status = self.script.pop(0) if self.script else self.otherwise
        if status == HANG:
            await self._stop.wait()
        if status in (301, 302, 307, 308):
            raise web.HTTPTemporaryRedirect(location="/elsewhere")
        return web.Response(status=status)

    async def until(self, count: int, guard_s: float = 600.0) -> None:
        """Until ``count`` requests arrived (the guard is against a hang, not a measure)."""

        async def wait() -> None:
            while len(self.got) < count:
                self.arrived.clear()
                await self.arrived.wait()

        await asyncio.wait_for(wait(), guard_s)


@asynccontextmanager
async def receiving(receiver: Receiver) -> AsyncIterator[Receiver]:
    """The receiver listening on 127.0.0.1 (a free port), stopped at the end."""
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", receiver.handle)
    runner = web.AppRunner(app, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    receiver.base = f"http://127.0.0.1:{port}"
    try:
        yield receiver
    finally:
        receiver._stop.set()
        await runner.cleanup()
