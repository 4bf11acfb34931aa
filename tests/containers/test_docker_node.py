"""``PD_ES_MODE=docker`` with an image the engine has: the launcher starts the node in a container
on the host network, on a free loopback port, reports it, and ``stop`` removes the container.
The Elasticsearch stand-in (devtools/base_images.py) serves where the official image cannot be
pulled. Where no Docker engine answers it is skipped, saying so, except under
`make container-test` with CI=true, where it fails (tests.conftest.needs_docker)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from devtools.base_images import ensure_elasticsearch
from devtools.docker_node import CONTAINER_PREFIX, ES_DOCKER_IMAGE, engine_problem, image_problem
from devtools.settings import REPO_ROOT, LauncherSettings
from tests.conftest import needs_docker


def _image() -> str:
    problem = engine_problem()
    needs_docker(problem and f"no Docker engine can be had here ({problem}); make engine-start")
    if image_problem(ES_DOCKER_IMAGE, LauncherSettings().pull_timeout_s) is None:
        return ES_DOCKER_IMAGE
    return ensure_elasticsearch()


def _launcher(command: str, cache: Path, image: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PD_")}
    env.pop("ELASTICSEARCH_URL", None)
    env |= {"PD_CACHE_DIR": str(cache), "PD_ES_MODE": "docker", "PD_ES_DOCKER_IMAGE": image}
    return subprocess.run(
        [sys.executable, "-m", "devtools.es_launcher", command],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _containers() -> list[str]:
    listed = subprocess.run(
        ["docker", "ps", "--all", "--format", "{{.Names}}", "--filter", f"name={CONTAINER_PREFIX}"],
        capture_output=True,
        text=True,
        check=True,
    )
    return listed.stdout.split()


def test_docker_mode_runs_the_node_in_a_container_on_loopback(tmp_path: Path) -> None:
    image = _image()
    before = _containers()
    try:
        started = _launcher("start", tmp_path, image)
        assert started.returncode == 0, started.stderr
        assert started.stderr.strip() == "Elasticsearch started (docker) at:"
        url = started.stdout.strip()
        assert url.startswith("http://127.0.0.1:")
        [name] = set(_containers()) - set(before)
        assert name == f"{CONTAINER_PREFIX}{url.rsplit(':', 1)[1]}"
        status = _launcher("status", tmp_path, image)
        assert (status.returncode, status.stdout.strip()) == (0, f"docker {url} healthy")
        again = _launcher("start", tmp_path, image)
        assert (again.stdout.strip(), again.stderr.strip()) == (
            url,
            "Elasticsearch reusing (docker) at:",
        )
    finally:
        stopped = _launcher("stop", tmp_path, image)
    assert stopped.stdout.strip() == "stopped"
    assert _containers() == before
