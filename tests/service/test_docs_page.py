"""The docs page in a real headless browser (Debian's chromium): Swagger UI renders every
operation of the served OpenAPI document, with its Authorize button, from assets served here.
Without chromium it is skipped, saying so; with CI=true it fails (tests.conftest.needs)."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from urllib.request import urlopen

import pytest

from tests.conftest import missing

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Without the background-networking switches chromium keeps calling out to the internet, which
# this kind of machine refuses.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--virtual-time-budget=20000",
    "--dump-dom",
)


def _read(url: str) -> bytes:
    with urlopen(url) as response:  # a local test server
        body: bytes = response.read()
    return body


@pytest.fixture
def chromium() -> str:
    if CHROMIUM is None:
        missing("chromium is not installed (apt-get install chromium; .ci/run installs it)")
    return CHROMIUM


async def test_every_operation_is_rendered(
    live_service: str, chromium: str, tmp_path: Path
) -> None:
    document = json.loads(await asyncio.to_thread(_read, f"{live_service}/v2/openapi.json"))
    process = await asyncio.create_subprocess_exec(
        chromium,
        *FLAGS,
        f"--user-data-dir={tmp_path / 'profile'}",
        f"{live_service}/v2/docs",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    # A guard against a hang, not a measure of speed.
    dom, _ = await asyncio.wait_for(process.communicate(), timeout=600)
    page = dom.decode(errors="replace")
    assert "swagger-ui" in page and "authorize" in page.lower()
    operations = [(method, path) for path, item in document["paths"].items() for method in item]
    assert len(operations) >= 8
    for method, path in operations:
        assert f'data-path="{path}"' in page, (method, path)
    assert page.count("opblock-summary-method") >= len(operations)
