"""The development Elasticsearch launcher as a developer runs it (`python -m devtools.es_launcher`),
each case in its own cache directory so the session's node is never touched."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from devtools import distribution
from devtools.distribution import LauncherError, java_home, node_root
from devtools.settings import LauncherSettings

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port held by a socket that is bound but never listens: connecting to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


def launcher(
    command: str, cache: Path, *, es_url: str | None = None, path: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ELASTICSEARCH_URL", "PD_CACHE_DIR")}
    env["PD_CACHE_DIR"] = str(cache)
    if es_url is not None:
        env["ELASTICSEARCH_URL"] = es_url
    if path is not None:
        env["PATH"] = path
    return subprocess.run(
        [sys.executable, "-m", "devtools.es_launcher", command],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def write_state(cache: Path, **state: object) -> None:
    cache.mkdir(parents=True, exist_ok=True)
    (cache / "es-node.json").write_text(json.dumps(state))


def test_status_of_a_configured_node_that_answers(es_url: str, tmp_path: Path) -> None:
    result = launcher("status", tmp_path, es_url=es_url)
    assert result.returncode == 0
    assert result.stdout.strip() == f"external {es_url} healthy"


def test_status_of_a_configured_node_that_does_not_answer(tmp_path: Path, closed_port: int) -> None:
    url = f"http://127.0.0.1:{closed_port}"
    result = launcher("status", tmp_path, es_url=url)
    assert result.returncode == 1
    assert result.stdout.strip() == f"external {url} not answering"


def test_status_and_stop_without_a_node(tmp_path: Path) -> None:
    status = launcher("status", tmp_path)
    assert (status.returncode, status.stdout.strip()) == (1, "no node running")
    stop = launcher("stop", tmp_path)
    assert (stop.returncode, stop.stdout.strip()) == (0, "no node to stop")


def test_start_reuses_a_running_node_it_recorded(es_url: str, tmp_path: Path) -> None:
    # A live pid (this test process) and a URL that answers: what a previous `start` leaves.
    write_state(tmp_path, pid=os.getpid(), url=es_url, kind="local")
    result = launcher("start", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == es_url
    assert "reusing (local)" in result.stderr
    assert (tmp_path / "es-node.json").exists()  # still recorded, not restarted


def test_a_stale_state_file_is_not_a_running_node(tmp_path: Path, closed_port: int) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    write_state(tmp_path, pid=int(dead.stdout), url=f"http://127.0.0.1:{closed_port}", kind="local")
    status = launcher("status", tmp_path)
    assert (status.returncode, status.stdout.strip()) == (1, "no node running")


def test_start_without_maven_says_what_is_missing(tmp_path: Path) -> None:
    # No node recorded, no distribution cached, no Docker and no mvn on PATH.
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    result = launcher("start", tmp_path / "cache", path=str(empty_bin))
    assert result.returncode == 1
    assert "Maven (mvn) is needed" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_missing_jdk_is_a_clear_error(tmp_path: Path) -> None:
    settings = LauncherSettings(cache_dir=tmp_path, java_home=None, path=str(tmp_path))
    with pytest.raises(LauncherError, match="No JDK found"):
        java_home(settings)
    given = LauncherSettings(cache_dir=tmp_path, java_home=Path("/opt/jdk"), path=str(tmp_path))
    assert java_home(given) == "/opt/jdk"


@pytest.fixture
def public_dir() -> Iterator[Path]:
    """A directory every user can traverse (pytest's own tmp_path is private to its user)."""
    path = Path(tempfile.mkdtemp(dir="/var/tmp"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path)


def test_as_root_the_node_lives_where_the_node_user_can_reach_it(
    tmp_path: Path, public_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run by any user: who runs the launcher is its input (``is_root``), set here."""
    monkeypatch.setattr(distribution, "is_root", lambda: True)
    private = tmp_path / "private"  # under pytest's directory, private to whoever runs it
    assert not tmp_path.stat().st_mode & stat.S_IXOTH
    fallback = node_root(LauncherSettings(cache_dir=private / ".cache"))
    assert fallback.parts[:4] == ("/", "var", "tmp", "provider-directory")
    assert fallback.name == "es-node"
    # one node root per checkout
    assert fallback != node_root(LauncherSettings(cache_dir=tmp_path / "other" / ".cache"))
    reachable = node_root(LauncherSettings(cache_dir=public_dir / ".cache"))
    assert reachable == public_dir.resolve() / ".cache" / "es-node"


def test_another_user_runs_the_node_where_it_asked_even_in_a_private_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A node started by another user runs as that user: its own private directory is fine."""
    monkeypatch.setattr(distribution, "is_root", lambda: False)
    private = tmp_path / "private"
    assert not tmp_path.stat().st_mode & stat.S_IXOTH
    assert node_root(LauncherSettings(cache_dir=private / ".cache")) == (
        private.resolve() / ".cache" / "es-node"
    )
