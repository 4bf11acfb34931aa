"""An Elasticsearch outage seen from the service: 503 + Retry-After fast, recovery without restart.

The session's node is shared, so the outage is made by a TCP proxy in front of it: closing the
proxy's listener and its connections is, for the service, exactly a node that went away (refused
connections); reopening it on the same port is the node coming back. A "hung" proxy accepts and
never answers, like a node that stopped responding.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import pytest

from service.web.app import create_app
from service.web.settings import Settings
from tests.conftest import ApiClient, ClientFactory

PROVIDER = "/v2/providers/1003000100"
SEARCH = "/v2/providers/search"
COVERAGE = "/v2/providers/coverage"
COVERAGE_BODY = {"contractYear": 2026, "bidIds": ["H1234_001_000"], "npis": [{"npi": "1003000100"}]}


class TcpProxy:
    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self._target = (parts.hostname or "127.0.0.1", parts.port or 9200)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = 0
        self.hang = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(
            self._handle, "127.0.0.1", self.port, reuse_address=True
        )
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Refuse new connections and cut the open ones, as a stopped node does."""
        assert self._server is not None
        self._server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()
        await self._server.wait_closed()
        self._server = None

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        if self.hang:
            with contextlib.suppress(ConnectionError, OSError):
                while await reader.read(65536):
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


@pytest.fixture
async def proxy(es_url: str) -> AsyncIterator[TcpProxy]:
    proxy = TcpProxy(es_url)
    await proxy.start()
    yield proxy
    if proxy._server is not None:
        await proxy.stop()


async def _answers(client: ApiClient, auth: dict[str, str]) -> list[tuple[int, float, str | None]]:
    """(status, seconds, Retry-After) of one call to every Elasticsearch-backed endpoint."""
    results = []
    for method, path, body in (
        ("GET", PROVIDER, None),
        ("GET", f"{PROVIDER}/locations", None),
        ("POST", SEARCH, {"query": "cardio", "location": "10013"}),
        ("POST", COVERAGE, COVERAGE_BODY),
    ):
        started = time.perf_counter()
        response = await client.request(method, path, json=body, headers=auth)
        elapsed = time.perf_counter() - started
        if response.status == 503:
            assert response.content_type == "application/problem+json"
            assert (await response.json())["code"] == "backend_unavailable"
        results.append((response.status, elapsed, response.headers.get("Retry-After")))
    return results


async def test_outage_is_503_fast_and_recovery_needs_no_restart(
    aiohttp_client: ClientFactory,
    sample_settings: Settings,
    auth_header: dict[str, str],
    proxy: TcpProxy,
) -> None:
    settings = sample_settings.model_copy(update={"elasticsearch_url": proxy.url})
    client = await aiohttp_client(create_app(settings))
    assert [status for status, _, _ in await _answers(client, auth_header)] == [200] * 4

    await proxy.stop()
    for status, seconds, retry_after in await _answers(client, auth_header):
        assert status == 503
        assert seconds < 1.0
        assert retry_after is not None and int(retry_after) >= 1
    ready = await client.get("/readyz")
    assert ready.status == 503
    assert (await client.get("/healthz")).status == 200  # alive, just not ready

    await proxy.start()  # the node is back, same address; the app was never restarted
    deadline = time.monotonic() + 5.0
    while (await client.get(PROVIDER, headers=auth_header)).status != 200:
        assert time.monotonic() < deadline, "no recovery within 5 s"
        await asyncio.sleep(0.1)
    assert [status for status, _, _ in await _answers(client, auth_header)] == [200] * 4
    assert (await client.get("/readyz")).status == 200


async def test_a_hung_node_is_503_after_the_request_timeout(
    aiohttp_client: ClientFactory,
    sample_settings: Settings,
    auth_header: dict[str, str],
    proxy: TcpProxy,
) -> None:
    proxy.hang = True
    # The default request timeout, so this also proves the default answers within a second.
    settings = sample_settings.model_copy(update={"elasticsearch_url": proxy.url})
    client = await aiohttp_client(create_app(settings))
    started = time.perf_counter()
    response = await client.get(PROVIDER, headers=auth_header)
    assert response.status == 503
    assert response.headers["Retry-After"] == "1"
    assert time.perf_counter() - started < 1.0
