"""The real console-script service (`provider-directory serve`) on the loaded sample, started once
per session, for tests that talk to it over a socket (schemathesis, the generated client, the
docs page in chromium)."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest

from core.index_contract import IndexNames
from indexer.load.run import LoadReport
from tests.conftest import TEST_ES_TIMEOUT_S, TEST_SECRET

REPO = Path(__file__).resolve().parents[2]
READY_DEADLINE_S = 600.0  # a guard against a hang, not a measure of speed


@pytest.fixture(scope="session")
def listening_socket() -> Iterator[socket.socket]:
    """A bound, listening loopback socket the service inherits: the port is held throughout."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        yield sock


async def _wait_ready(base: str, server: asyncio.subprocess.Process) -> None:
    async def poll() -> None:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None)) as session:
            while True:
                if server.returncode is not None:
                    pytest.fail(f"the service exited with {server.returncode}")
                async with session.get(f"{base}/readyz") as response:
                    if response.status == 200:
                        return
                await asyncio.sleep(0.05)

    try:
        await asyncio.wait_for(poll(), READY_DEADLINE_S)
    except TimeoutError:
        pytest.fail(f"the service was not ready within {READY_DEADLINE_S:.0f} s")


@pytest.fixture(scope="session")
async def live_service(
    es_url: str, loaded_sample: tuple[IndexNames, LoadReport], listening_socket: socket.socket
) -> AsyncIterator[str]:
    """Base URL of the service (sandbox on, rate limits out of the way), one process for the
    session: the tests that use it only read."""
    env = os.environ | {
        "ELASTICSEARCH_URL": es_url,
        "PD_ENVIRONMENT": "test",
        "PD_JWT_SECRET": TEST_SECRET,
        "PD_INDEX_PREFIX": loaded_sample[0].prefix,
        "PD_ES_REQUEST_TIMEOUT_S": str(TEST_ES_TIMEOUT_S),
        "PD_SANDBOX": "true",
        "PD_METRICS_ENABLED": "true",
        "PD_RATE_LIMIT_PER_S": "0",
        # A watch a fuzzer makes is never delivered, and its URL's host never looked up: no
        # request leaves the machine. Every host allowed: a schema-valid URL is accepted (the
        # target rules have tests of their own, tests/service/watches).
        "PD_WEBHOOK_DELIVERY": "false",
        "PD_WEBHOOK_ALLOW": "*",
    }
    fd = listening_socket.fileno()
    server = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "service.cli", "serve", "--fd", str(fd)),
        env=env,
        cwd=REPO,
        pass_fds=(fd,),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{listening_socket.getsockname()[1]}"
    try:
        await _wait_ready(base, server)
        yield base
    finally:
        server.terminate()
        await server.wait()
