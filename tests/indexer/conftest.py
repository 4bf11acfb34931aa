"""Fixtures of the indexer tests: the sample directory and the CLI as a subprocess."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from devtools.tcp_proxy import TcpProxy
from indexer import versions
from tests.conftest import SAMPLE_DIR

REPO = SAMPLE_DIR.parent.parent


@pytest.fixture(scope="session")
def sample_dir() -> Path:
    return SAMPLE_DIR


def indexer_process(
    es_url: str, names: IndexNames, *args: str, cwd: Path = REPO
) -> subprocess.Popen[str]:
    """``provider-indexer`` as a child process, as an operator runs it."""
    env = {**os.environ, "ELASTICSEARCH_URL": es_url, "PD_INDEX_PREFIX": names.prefix}
    return subprocess.Popen(
        [sys.executable, "-m", "indexer.cli", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
async def es_proxy(es_url: str) -> AsyncIterator[TcpProxy]:
    """A proxy in front of the session's node: a load sent through it can be held still (pause),
    cut (reset) or let go (forward) at a point the test chooses."""
    proxy = TcpProxy(es_url)
    await proxy.start()
    yield proxy
    await proxy.close()


async def wait_for_new_version(
    es: AsyncElasticsearch,
    names: IndexNames,
    known: int,
    process: subprocess.Popen[str] | None = None,
    timeout_s: float = 120.0,
) -> str:
    """The version a load is writing, once documents flow into it (its indices all exist and
    Elasticsearch has indexed some); a clear failure if the load exits first or nothing comes
    within the timeout."""

    async def indexed(version: str) -> int:
        # A pattern: no error while the index does not exist yet.
        stats = await es.indices.stats(index=names.versioned("search", version) + "*")
        totals = stats["_all"]["primaries"].get("indexing", {})
        return int(totals.get("index_total", 0))

    async def appeared() -> str:
        while True:
            if process is not None and process.poll() is not None:
                pytest.fail(f"the load exited first: {process.communicate()}")
            found = list(await versions.scan(es, names))
            if len(found) > known and await indexed(found[-1]) > 0:
                return found[-1]
            await asyncio.sleep(0.02)

    try:
        return await asyncio.wait_for(appeared(), timeout_s)
    except TimeoutError:
        pytest.fail(f"no new version within {timeout_s:.0f} s")
