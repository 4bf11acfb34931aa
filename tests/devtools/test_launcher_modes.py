"""PD_ES_MODE and the default resolution of the launcher, run as a developer runs it: each case in
its own cache directory, so the session's node is never touched. Cases that need a Docker engine
use the real one (no registry is reachable from this project's machines, so an image that is not
present cannot be provided): skipped where none answers, saying so, and failed under
`make container-test` with CI=true (tests.conftest.needs_docker)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from devtools.distribution import ES_VERSION
from devtools.docker_node import engine_problem
from devtools.settings import REPO_ROOT
from tests.conftest import needs_docker

ABSENT_IMAGE = "provider-directory/absent-elasticsearch:never-built"


def launcher(command: str, cache: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in ("ELASTICSEARCH_URL", "PD_CACHE_DIR", "PD_ES_MODE", "PD_ES_DOCKER_IMAGE")
    }
    return subprocess.run(
        [sys.executable, "-m", "devtools.es_launcher", command],
        cwd=REPO_ROOT,
        env={**clean, "PD_CACHE_DIR": str(cache), **env},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.fixture
def engine() -> None:
    problem = engine_problem()
    needs_docker(problem and f"needs a Docker engine: {problem}")


@pytest.fixture
def no_engine(tmp_path: Path) -> dict[str, str]:
    """No Docker engine at the address the Docker SDK uses, and a PATH with neither Maven nor
    Java on it."""
    empty = tmp_path / "bin"
    empty.mkdir()
    return {"DOCKER_HOST": f"unix://{tmp_path}/no-engine.sock", "PATH": str(empty)}


def test_url_mode_without_a_url_is_a_clear_error(tmp_path: Path) -> None:
    result = launcher("start", tmp_path, PD_ES_MODE="url")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "error: PD_ES_MODE=url needs ELASTICSEARCH_URL (the node's address)."
    )


def test_an_unknown_mode_is_named_without_a_traceback(tmp_path: Path) -> None:
    result = launcher("start", tmp_path, PD_ES_MODE="kubernetes")
    assert result.returncode == 1
    assert result.stderr.startswith("error: PD_ES_MODE: Input should be 'auto', 'url'")
    assert "Traceback" not in result.stderr


def test_docker_mode_without_an_engine_says_so(tmp_path: Path, no_engine: dict[str, str]) -> None:
    result = launcher("start", tmp_path, PD_ES_MODE="docker", **no_engine)
    assert result.returncode == 1
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: PD_ES_MODE=docker: no Docker engine answers (")
    assert "Traceback" not in result.stderr


def test_without_an_engine_the_default_goes_local_without_a_note(
    tmp_path: Path, no_engine: dict[str, str]
) -> None:
    # Local is the path taken: it stops at its own first need (Maven), and nothing is noted.
    result = launcher("start", tmp_path, **no_engine)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "error: Maven (mvn) is needed to fetch Elasticsearch from Maven Central."
    )


@pytest.mark.usefixtures("engine")
def test_docker_mode_with_an_image_the_engine_cannot_provide_fails_clearly(
    tmp_path: Path,
) -> None:
    result = launcher("start", tmp_path, PD_ES_MODE="docker", PD_ES_DOCKER_IMAGE=ABSENT_IMAGE)
    assert result.returncode == 1
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: PD_ES_MODE=docker: cannot pull {ABSENT_IMAGE}: ")
    assert not (tmp_path / "es-node.json").exists()


@pytest.fixture
def public_cache() -> Iterator[Path]:
    """A cache every user can traverse (the node user must reach it), holding the session's
    already fetched distribution so no download happens."""
    root = Path(tempfile.mkdtemp(dir="/var/tmp"))
    root.chmod(0o755)
    dist = REPO_ROOT / ".cache" / "dist" / f"elasticsearch-{ES_VERSION}.zip"
    if dist.exists():
        (root / "dist").mkdir()
        (root / "dist" / dist.name).symlink_to(dist)
    yield root
    launcher("stop", root)
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.usefixtures("engine")
def test_an_engine_that_cannot_provide_the_image_falls_back_to_a_local_node(
    public_cache: Path,
) -> None:
    result = launcher("start", public_cache, PD_ES_DOCKER_IMAGE=ABSENT_IMAGE)
    assert result.returncode == 0, result.stderr
    note, started = result.stderr.strip().splitlines()
    assert note.startswith(f"note: cannot pull {ABSENT_IMAGE}: ")
    assert note.endswith("; using a local node instead.")
    assert started == "Elasticsearch started (local) at:"
    url = result.stdout.strip()
    status = launcher("status", public_cache)
    assert (status.returncode, status.stdout.strip()) == (0, f"local {url} healthy")
    # An explicit other mode does not silently take over, nor stop, the running node.
    docker = launcher("start", public_cache, PD_ES_MODE="docker")
    assert docker.returncode == 1
    assert f"a local node is running at {url}: stop it first" in docker.stderr
    assert launcher("stop", public_cache).stdout.strip() == "stopped"
