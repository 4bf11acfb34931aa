"""Schemathesis against the live service: the real console script serving the loaded sample
(sandbox on, so both route sets are exercised), every check, a bounded number of examples and a
fixed seed so CI stays fast and repeatable. Run twice: as an outside client runs it (no project
hooks: the document alone must say what the service enforces), and with strategies for the
formats the document names (known places, issued cursors; ``schemathesis_hooks.py``), which
reach deeper than random strings do.

Asserted: zero server errors, zero responses that break the schema (status codes, content types,
headers, bodies), data valid by the document accepted, invalid data rejected with a 4xx, every
operation tested. The figures are printed (run with ``-s`` to see them).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from service.web.auth import mint_token
from service.web.settings import Settings

REPO = Path(__file__).resolve().parents[2]
MAX_EXAMPLES = 25
SEED = 20261122
EXPECTED_OPERATIONS = 18  # 4 POST + 9 GET + 1 DELETE under /v2, 4 service routes
SANDBOX_COPIES = "^/(providers|plans|directories|changes|watches)"


@pytest.mark.parametrize("hooks", [None, "tests.service.schemathesis_hooks"])
async def test_schemathesis_finds_no_failures(
    live_service: str, sample_settings: Settings, tmp_path: Path, hooks: str | None
) -> None:
    token = mint_token(sample_settings, subject="schemathesis")
    report = tmp_path / "schemathesis.json"
    command = [
        str(Path(sys.executable).parent / "schemathesis"),
        "run",
        f"{live_service}/v2/openapi.json",
        "--checks",
        "all",
        # The sandbox's copies of the /v2 operations (PD_SANDBOX): the same handlers under
        # another prefix, which test_openapi checks are described alike; fuzzed once, under /v2.
        "--exclude-path-regex",
        SANDBOX_COPIES,
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
    env = {k: v for k, v in os.environ.items() if k != "SCHEMATHESIS_HOOKS"}
    if hooks is not None:
        env |= {"SCHEMATHESIS_HOOKS": hooks, "PYTHONPATH": str(REPO)}
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout=300)
    text = output.decode(errors="replace")
    assert process.returncode == 0, text[-6000:]
    result = json.loads(report.read_text())
    cases = result["test_cases"]
    print(
        f"\nschemathesis {result['schemathesis_version']} (hooks: {hooks}): "
        f"{result['operations']['tested']} operations, {cases['generated']} cases, "
        f"{cases['with_failures']} with failures, {len(result['failures'])} failures, "
        f"{len(result['errors'])} errors, {result['running_time']:.1f} s"
    )
    assert result["complete"] is True
    assert result["failures"] == [] and result["errors"] == []
    assert cases["with_failures"] == 0 and cases["errored"] == 0
    assert result["operations"]["tested"] == EXPECTED_OPERATIONS
    assert result["operations"]["total"] == EXPECTED_OPERATIONS + 14  # the sandbox's copies
    assert cases["generated"] >= EXPECTED_OPERATIONS * 10
