"""``make engine-start|engine-stop`` (devtools/engine.py), which CI itself uses, without a real
engine: no engine answers at the address the Docker SDK is given, ``dockerd`` is a stand-in script
on PATH, and each case has its own cache directory. What a real dockerd does is covered by
``make container-test``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from devtools import engine
from devtools.settings import LauncherSettings


@pytest.fixture
def no_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No engine at the SDK's address; an empty bin folder first on PATH; the cache in tmp."""
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    monkeypatch.setenv("PD_CACHE_DIR", str(tmp_path / "cache"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    return bin_dir


def _dockerd(bin_dir: Path, script: str) -> None:
    path = bin_dir / "dockerd"
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(0o755)


def test_help_names_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        engine.main(["--help"])
    assert exited.value.code == 0
    assert "{start,stop,status}" in capsys.readouterr().out


def test_status_says_why_no_engine_answers(
    no_engine: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert engine.main(["status"]) == 1
    assert capsys.readouterr().out.startswith("no Docker engine answers")


def test_stop_without_a_started_engine_stops_nothing(
    no_engine: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert engine.main(["stop"]) == 0
    assert capsys.readouterr().out.strip() == "no engine started here"


def test_start_without_dockerd_says_what_to_install(
    no_engine: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert engine.main(["start"]) == 1
    assert capsys.readouterr().err.strip() == (
        "error: no dockerd: install Debian's docker.io (apt-get install docker.io)."
    )


def test_a_dockerd_that_exits_is_reported_with_its_log(
    no_engine: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _dockerd(no_engine, 'echo "failed to start daemon: $*"; exit 3')
    assert engine.main(["start"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: dockerd exited with code 3:\n"), err
    assert "failed to start daemon: --bridge=none --iptables=false --ip6tables=false" in err
    assert not (Path(os.environ["PD_CACHE_DIR"]) / "dockerd" / "engine.json").exists()


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    """A process standing in for a dockerd that ``start`` recorded."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield process
    if process.poll() is None:
        process.kill()
    process.wait()


def test_stop_ends_only_the_engine_start_recorded(
    no_engine: Path, sleeper: subprocess.Popen[bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    state = LauncherSettings().cache_dir / "dockerd" / "engine.json"
    state.parent.mkdir(parents=True)
    state.write_text(json.dumps({"pid": sleeper.pid}))
    assert engine.main(["stop"]) == 0
    assert capsys.readouterr().out.strip() == "engine stopped"
    # A 600 s sleep that ends now was ended by stop's SIGTERM: reaped here (-SIGTERM) or by
    # stop's own waitpid, which takes the status and leaves Popen a 0 (which one is timing).
    assert sleeper.wait(timeout=300) in (-signal.SIGTERM, 0)
    assert not state.exists()
    assert engine.main(["stop"]) == 0  # nothing recorded any more
    assert capsys.readouterr().out.strip() == "no engine started here"
