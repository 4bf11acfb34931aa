"""Fixtures of the indexer tests: the sample directory and the CLI as a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.index_contract import IndexNames
from devtools.tcp_proxy import TcpProxy
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
