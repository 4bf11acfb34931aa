"""Tests that start their own Elasticsearch clusters (several JVMs, minutes): collected always,
run only by `make cluster-test`, which sets PD_CLUSTER_TESTS=1; elsewhere they are skipped,
saying so. Every cluster they start is stopped at the end, also on failure, and its directories
are removed."""

from __future__ import annotations

import os
import shutil
import signal
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from core.processes import pid_alive
from devtools.cluster import Cluster, plan
from devtools.local_node import kill_group
from devtools.settings import LauncherSettings

ENABLE = "PD_CLUSTER_TESTS"
HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get(ENABLE) == "1":
        return
    reason = f"starts Elasticsearch clusters: run by `make cluster-test` ({ENABLE}=1)"
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(skip)


def run_settings(name: str | None = None) -> LauncherSettings:
    """The repository's cache (its distribution) under a cluster name of this run's own."""
    return LauncherSettings(cluster_name=name or f"test-{uuid.uuid4().hex[:8]}")


@contextmanager
def running_cluster(count: int) -> Iterator[Cluster]:
    """A new cluster of ``count`` nodes, green; stopped (SIGTERM, then SIGKILL) and removed
    afterwards."""
    cluster = Cluster(settings := run_settings(), plan(settings, count))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        for pid in cluster.pids.values():
            if pid_alive(pid):
                kill_group(pid, signal.SIGKILL)
        shutil.rmtree(cluster.nodes[0].spec.root.parent, ignore_errors=True)


@pytest.fixture(scope="module")
def three_nodes() -> Iterator[Cluster]:
    with running_cluster(3) as cluster:
        yield cluster
