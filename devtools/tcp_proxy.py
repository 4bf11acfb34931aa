"""A loopback TCP proxy that plays an Elasticsearch node going away, hanging and coming back.

Used by the outage tests and the outage fault harness (bench/outage_bench.py). The proxy holds
its listening port for its whole life, so "the node is back on the same address" never races
another process for a released port:
- ``forward``: every byte goes to the upstream node and back;
- ``reset``: connections are cut at once (open ones too), as a node that went away;
- ``hang``: connections are accepted and never answered, as a node that stopped responding;
- ``pause``: connections are accepted and held, unread, until the mode is ``forward`` again, when
  they go through: a client (a load, say) held still at a known point, then let go.
Leaving ``forward`` cuts the open connections, so a client's next request meets the new mode.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Literal
from urllib.parse import urlsplit

Mode = Literal["forward", "reset", "hang", "pause"]
CHUNK = 65536


class TcpProxy:
    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self._target = (parts.hostname or "127.0.0.1", parts.port or 9200)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._handlers: set[asyncio.Task[None]] = set()
        self._mode: Mode = "forward"
        self._released = asyncio.Event()
        self._released.set()
        self._held = 0
        self._held_changed = asyncio.Condition()
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        """Cut every connection, wait for their handlers to end, release the port."""
        self.set_mode("reset")
        if self._server is not None:
            self._server.close()
            await asyncio.gather(*self._handlers, return_exceptions=True)
            await self._server.wait_closed()
            self._server = None

    def set_mode(self, mode: Mode) -> None:
        """Switch behaviour; leaving ``forward`` cuts every open connection, and going back to
        ``forward`` lets held (paused) connections through."""
        self._mode = mode
        if mode == "pause":
            self._released.clear()
        else:
            self._released.set()  # held connections see the new mode
        if mode == "forward":
            return
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def wait_held(self, count: int = 1, timeout_s: float = 60.0) -> None:
        """Until ``count`` connections are held by ``pause``; a clear failure after the timeout."""

        async def enough() -> None:
            async with self._held_changed:
                await self._held_changed.wait_for(lambda: self._held >= count)

        try:
            await asyncio.wait_for(enough(), timeout_s)
        except TimeoutError:
            raise AssertionError(f"no connection was held within {timeout_s:.0f} s") from None

    async def _hold(self) -> Mode:
        """Wait while paused; the mode that released the connection."""
        async with self._held_changed:
            self._held += 1
            self._held_changed.notify_all()
        try:
            await self._released.wait()
        finally:
            async with self._held_changed:
                self._held -= 1
        return self._mode

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await reader.read(CHUNK):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)
        if self._mode == "reset":
            writer.transport.abort()
            return
        self._writers.add(writer)
        mode = await self._hold() if self._mode == "pause" else self._mode
        if mode in ("reset", "pause"):  # cut while held
            writer.transport.abort()
            return
        if mode == "hang":
            with contextlib.suppress(ConnectionError, OSError):
                while await reader.read(CHUNK):
                    pass
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self._target)
        except OSError:
            writer.transport.abort()
            return
        self._writers.add(up_writer)
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        self._writers.discard(writer)
        self._writers.discard(up_writer)
