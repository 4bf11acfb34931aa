"""Schemathesis against the live service: the real console script serving the loaded sample on a
free port (sandbox on, so both route sets are exercised), every check except positive-data
acceptance (the document cannot express every rule of a request, e.g. a ZIP code must exist), a
bounded number of examples and a fixed seed so CI stays fast and repeatable.

Asserted: zero server errors, zero responses that break the schema (status codes, content types,
headers, bodies), negative data rejected with a 4xx, every operation tested. The figures are
printed (run with ``-s`` to see them) and kept in the JSON report.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from core.index_contract import IndexNames
from indexer.load import LoadReport
from service.web.auth import mint_token
from service.web.settings import Settings
from tests.conftest import TEST_SECRET

REPO = Path(__file__).resolve().parents[2]
MAX_EXAMPLES = 25
SEED = 20261122
EXPECTED_OPERATIONS = 12  # 2 POST + 2 GET under /v2 and in the sandbox, 4 service routes


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
async def live_service(
    es_url: str, loaded_sample: tuple[IndexNames, LoadReport]
) -> AsyncIterator[str]:
    port = _free_port()
    env = os.environ | {
        "ELASTICSEARCH_URL": es_url,
        "PD_ENVIRONMENT": "test",
        "PD_JWT_SECRET": TEST_SECRET,
        "PD_INDEX_PREFIX": loaded_sample[0].prefix,
        "PD_SANDBOX": "true",
        "PD_METRICS_ENABLED": "true",
        "PD_RATE_LIMIT_PER_S": "10000",
        "PD_RATE_LIMIT_BURST": "10000",
    }
    server = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "service.cli",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        env=env,
        cwd=REPO,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        async with aiohttp.ClientSession() as session:
            for _ in range(150):
                try:
                    async with session.get(f"{base}/readyz") as response:
                        if response.status == 200:
                            break
                except aiohttp.ClientConnectionError:
                    pass
                await asyncio.sleep(0.1)
            else:
                pytest.fail("the service did not become ready")
        yield base
    finally:
        server.terminate()
        await server.wait()


async def test_schemathesis_finds_no_failures(
    live_service: str, sample_settings: Settings, tmp_path: Path
) -> None:
    token = mint_token(sample_settings, subject="schemathesis")
    report = tmp_path / "schemathesis.json"
    command = [
        str(Path(sys.executable).parent / "schemathesis"),
        "run",
        f"{live_service}/v2/openapi.json",
        "--checks",
        "all",
        "--exclude-checks",
        "positive_data_acceptance",
        "--max-examples",
        str(MAX_EXAMPLES),
        "--seed",
        str(SEED),
        "--workers",
        "1",
        "--generation-database",
        "none",
        "--header",
        f"Authorization: Bearer {token}",
        "--no-color",
        "--report",
        "json",
        "--report-json-path",
        str(report),
    ]
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout=300)
    text = output.decode(errors="replace")
    assert process.returncode == 0, text[-6000:]
    result = json.loads(report.read_text())
    cases = result["test_cases"]
    print(
        f"\nschemathesis {result['schemathesis_version']}: "
        f"{result['operations']['tested']} operations, {cases['generated']} cases, "
        f"{cases['with_failures']} with failures, {len(result['failures'])} failures, "
        f"{len(result['errors'])} errors, {result['running_time']:.1f} s"
    )
    assert result["complete"] is True
    assert result["failures"] == [] and result["errors"] == []
    assert cases["with_failures"] == 0 and cases["errored"] == 0
    assert result["operations"]["tested"] == result["operations"]["total"] == EXPECTED_OPERATIONS
    assert cases["generated"] >= EXPECTED_OPERATIONS * 10
