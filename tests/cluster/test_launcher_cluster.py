"""`python -m devtools.es_launcher start|status|stop --nodes N` as a developer runs it: a real
cluster from the repository's distribution, under a cluster name of this test's own (so a
developer's cluster is never touched), and `stop` after a start that was itself killed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.processes import pid_alive
from devtools.cluster import cluster_label, clusters_root
from devtools.cluster_record import record_file, stop_recorded
from devtools.distribution import node_root
from devtools.settings import REPO_ROOT, LauncherSettings
from tests.cluster.conftest import run_settings
from tests.devtools.test_cluster import launcher as run_launcher

# Two nodes: the launcher's code is the same for any count, and each JVM more costs CI about ten
# seconds of a core (tests/cluster/test_node_loss.py runs a cluster of three).
NODES = 2


def launcher(name: str, command: str) -> subprocess.CompletedProcess[str]:
    cache = LauncherSettings().cache_dir  # the repository's, with its distribution
    return run_launcher(
        cache, command, "--nodes", str(NODES), timeout_s=300, PD_ES_CLUSTER_NAME=name
    )


def recorded_pids(name: str) -> list[int]:
    try:
        record = json.loads(record_file(run_settings(name), NODES).read_text())
    except (OSError, ValueError):
        return []
    return [node["pid"] for node in record["nodes"] if isinstance(node["pid"], int)]


@pytest.fixture
def cluster_name() -> Iterator[str]:
    """A fresh cluster name; whatever runs under it is stopped and its files removed after."""
    settings = run_settings()
    yield settings.cluster_name
    stop_recorded(settings, NODES)
    shutil.rmtree(clusters_root(settings) / cluster_label(settings, NODES), ignore_errors=True)


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def test_start_status_stop(cluster_name: str) -> None:
    started = launcher(cluster_name, "start")
    assert started.returncode == 0, started.stderr
    assert f"started (cluster of {NODES} local nodes)" in started.stderr
    urls = started.stdout.strip().splitlines()[-1].split(",")
    assert len(set(urls)) == NODES
    assert all(url.startswith("http://127.0.0.1:") for url in urls)
    local = "_nodes/_local/settings?filter_path=cluster_name,nodes.*.name,nodes.*.settings.path"
    nodes = [node for url in urls for node in get(f"{url}/{local}")["nodes"].values()]
    assert {get(f"{url}/{local}")["cluster_name"] for url in urls} == {
        f"provider-directory-{cluster_name}-{NODES}"
    }
    assert sorted(node["name"] for node in nodes) == [f"node-{n}" for n in range(1, NODES + 1)]
    data = {Path(node["settings"]["path"]["data"]) for node in nodes}
    assert len(data) == NODES  # a directory each, none of them the single node's
    assert not any(path.is_relative_to(node_root(run_settings(cluster_name))) for path in data)
    health = get(f"{urls[0]}/_cluster/health")
    assert (health["status"], health["number_of_nodes"]) == ("green", NODES)

    pids = recorded_pids(cluster_name)
    assert len(pids) == NODES and all(pid_alive(pid) for pid in pids)
    status = launcher(cluster_name, "status")
    assert status.returncode == 0, status.stdout
    assert status.stdout.splitlines()[-1] == (
        f"cluster provider-directory-{cluster_name}-{NODES} green with {NODES} of {NODES} nodes"
    )
    again = launcher(cluster_name, "start")
    assert again.stdout.strip().splitlines()[-1] == ",".join(urls)
    assert "reusing" in again.stderr

    stopped = launcher(cluster_name, "stop")
    assert stopped.stdout.strip() == "stopped"
    assert not any(pid_alive(pid) for pid in pids)
    assert launcher(cluster_name, "status").returncode == 1


def test_stop_ends_a_cluster_whose_start_was_killed(cluster_name: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("ELASTICSEARCH_URL", "PD_ES_MODE")}
    start = subprocess.Popen(
        [sys.executable, "-m", "devtools.es_launcher", "start", "--nodes", str(NODES)],
        cwd=REPO_ROOT,
        env={**env, "PD_ES_CLUSTER_NAME": cluster_name},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # Until every node is recorded, or the launcher ends first (a guard against a hang of
        # minutes, not a measure of speed).
        deadline = time.monotonic() + 600
        while len(recorded_pids(cluster_name)) < NODES and start.poll() is None:
            assert time.monotonic() < deadline, "the launcher recorded no cluster in 10 minutes"
            time.sleep(0.1)
    finally:
        start.send_signal(signal.SIGKILL)  # the launcher only: its nodes run in their own sessions
        start.wait()
    pids = recorded_pids(cluster_name)
    assert len(pids) == NODES and any(pid_alive(pid) for pid in pids)

    stopped = launcher(cluster_name, "stop")
    assert stopped.stdout.strip() == "stopped"
    assert not any(pid_alive(pid) for pid in pids)
