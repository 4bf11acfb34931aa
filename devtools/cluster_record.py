"""The launcher's cluster (`es_launcher start|stop|status --nodes N`): a Cluster recorded pid by pid
in ``es-cluster-<name>-<N>.json`` in the cache directory, so ``stop`` also ends a cluster whose
start was interrupted, and a second ``start`` reuses one whose nodes all run and answer.
"""

from __future__ import annotations

import json
from pathlib import Path

from devtools.cluster import Cluster, cluster_label, plan
from devtools.distribution import LauncherError, cache_dir
from devtools.settings import LauncherSettings


def record_file(settings: LauncherSettings, count: int) -> Path:
    return cache_dir(settings) / f"es-cluster-{cluster_label(settings, count)}.json"


def _write_record(settings: LauncherSettings, cluster: Cluster) -> None:
    path = record_file(settings, len(cluster.nodes))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cluster.to_record()))


def recorded(settings: LauncherSettings, count: int) -> Cluster | None:
    """The recorded cluster of ``count`` nodes; what it starts again is recorded too."""
    try:
        record = json.loads(record_file(settings, count).read_text())
        return Cluster.from_record(settings, record, lambda c: _write_record(settings, c))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _all_up(cluster: Cluster) -> bool:
    if not all(cluster.alive(node.name) for node in cluster.nodes):
        return False
    try:
        cluster.wait_for("yellow", timeout_s=2.0)
    except LauncherError:
        return False
    return True


def start_recorded(settings: LauncherSettings, count: int) -> tuple[Cluster, bool]:
    """(the cluster of ``count`` nodes, started here): the recorded one when all its nodes run
    and answer, else a new one, recorded as each node is spawned and stopped if it fails."""
    existing = recorded(settings, count)
    if existing is not None and _all_up(existing):
        return existing, False
    stop_recorded(settings, count)  # a stale record, or what is left of a half-started cluster
    cluster = Cluster(
        settings, plan(settings, count), on_change=lambda c: _write_record(settings, c)
    )
    _write_record(settings, cluster)
    try:
        cluster.start()
    except BaseException:
        cluster.stop()
        record_file(settings, count).unlink(missing_ok=True)
        raise
    return cluster, True


def stop_recorded(settings: LauncherSettings, count: int) -> bool:
    """Stop every recorded node of the cluster of ``count``; True when there was a record."""
    cluster = recorded(settings, count)
    path = record_file(settings, count)
    if cluster is None:
        existed = path.exists()
        path.unlink(missing_ok=True)
        return existed
    cluster.stop()
    path.unlink(missing_ok=True)
    return True


def status_lines(settings: LauncherSettings, count: int) -> tuple[bool, list[str]]:
    """(every node runs and the cluster is at least yellow, a line per node and one for the
    cluster)."""
    cluster = recorded(settings, count)
    if cluster is None:
        return False, [f"no cluster of {count} nodes running"]
    lines = []
    for node in cluster.nodes:
        state = "running" if cluster.alive(node.name) else "not running"
        lines.append(f"{node.name} {node.url} pid {cluster.pids.get(node.name)} {state}")
    try:
        health = cluster.health()
    except LauncherError as error:
        return False, [*lines, f"cluster not answering ({error})"]
    running = all(cluster.alive(node.name) for node in cluster.nodes)
    lines.append(
        f"cluster {health['cluster_name']} {health['status']} with "
        f"{health['number_of_nodes']} of {count} nodes"
    )
    return running and health["status"] in ("green", "yellow"), lines
