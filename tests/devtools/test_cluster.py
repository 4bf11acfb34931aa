"""The local cluster's pure parts, fast and without Elasticsearch: each node's command line and
environment, where its files go, its record, the launcher's answers when no cluster runs, and
`stop` ending every recorded process (real processes that are not Elasticsearch)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.processes import pid_alive
from devtools.cluster import (
    Cluster,
    ClusterNode,
    cluster_specs,
    clusters_root,
    plan,
)
from devtools.cluster_record import record_file, status_lines, stop_recorded
from devtools.distribution import LauncherError, node_root
from devtools.local_node import SINGLE_NODE_OPTIONS, NodeSpec, command_line, environment
from devtools.settings import REPO_ROOT, LauncherSettings

PORTS = [(9201, 9301), (9202, 9302), (9203, 9303)]


def options(args: list[str]) -> dict[str, str]:
    """The ``-E key=value`` pairs of a command line."""
    assert all(flag == "-E" for flag in args[1::2])
    return dict(pair.split("=", 1) for pair in args[2::2])


@pytest.fixture
def settings(tmp_path: Path) -> LauncherSettings:
    return LauncherSettings(
        cache_dir=tmp_path,
        java_home=Path("/opt/jdk"),
        cluster_name="unit",
        stop_timeout_s=1.0,
        jvm_options="",
    )


def three(tmp_path: Path) -> list[ClusterNode]:
    return cluster_specs(
        home=tmp_path / "es", base=tmp_path / "unit-3", cluster="pd-unit", heap="512m", ports=PORTS
    )


def test_every_node_of_a_cluster_knows_the_others_on_loopback(tmp_path: Path) -> None:
    nodes = three(tmp_path)
    assert [node.name for node in nodes] == ["node-1", "node-2", "node-3"]
    assert [node.url for node in nodes] == [f"http://127.0.0.1:{http}" for http, _ in PORTS]
    for node, (http, transport) in zip(nodes, PORTS, strict=True):
        args = command_line(node.spec)
        assert args[0] == str(tmp_path / "es" / "bin" / "elasticsearch")
        assert options(args) == {
            "xpack.security.enabled": "false",
            "network.host": "127.0.0.1",
            "cluster.routing.allocation.disk.threshold_enabled": "false",
            "action.destructive_requires_name": "false",
            "http.port": str(http),
            "transport.port": str(transport),
            "path.data": str(tmp_path / "unit-3" / node.name / "data"),
            "path.logs": str(tmp_path / "unit-3" / node.name / "logs"),
            "cluster.name": "pd-unit",
            "discovery.seed_hosts": "127.0.0.1:9301,127.0.0.1:9302,127.0.0.1:9303",
            "cluster.initial_master_nodes": "node-1,node-2,node-3",
            "node.name": node.name,
        }
    assert len({node.data_dir for node in nodes}) == 3


def test_a_cluster_node_has_its_own_heap_home_and_config(
    tmp_path: Path, settings: LauncherSettings
) -> None:
    node = three(tmp_path)[1]
    env = environment(settings, node.spec)
    assert env == {
        "PATH": settings.path,
        "ES_JAVA_HOME": "/opt/jdk",
        "ES_JAVA_OPTS": "-Xms512m -Xmx512m",
        "HOME": str(tmp_path / "unit-3" / "node-2"),
        "ES_PATH_CONF": str(tmp_path / "unit-3" / "node-2" / "config"),
    }


def test_the_single_node_is_built_the_same_way(tmp_path: Path, settings: LauncherSettings) -> None:
    spec = NodeSpec(
        home=tmp_path / "es",
        root=tmp_path / "es-node",
        http_port=9200,
        transport_port=9300,
        heap=settings.heap,
        options=SINGLE_NODE_OPTIONS,
    )
    given = options(command_line(spec))
    assert given["discovery.type"] == "single-node"
    assert "cluster.name" not in given and "discovery.seed_hosts" not in given
    assert given["path.data"] == str(tmp_path / "es-node" / "data")
    env = environment(settings, spec)
    assert env["ES_JAVA_OPTS"] == "-Xms1g -Xmx1g" and "ES_PATH_CONF" not in env
    more = settings.model_copy(update={"jvm_options": "-XX:TieredStopAtLevel=1"})
    assert environment(more, spec)["ES_JAVA_OPTS"] == "-Xms1g -Xmx1g -XX:TieredStopAtLevel=1"


def test_clusters_never_live_in_the_single_node_directory(settings: LauncherSettings) -> None:
    single, clusters = node_root(settings), clusters_root(settings)
    assert clusters.parent == single.parent
    assert not clusters.is_relative_to(single) and not single.is_relative_to(clusters)
    assert record_file(settings, 3).name == "es-cluster-unit-3.json"
    assert record_file(settings, 3) != settings.cache_dir / "es-node.json"


def test_a_cluster_has_at_least_two_nodes(settings: LauncherSettings) -> None:
    with pytest.raises(LauncherError, match="at least 2 nodes"):
        plan(settings, 1)


def test_the_record_gives_back_the_same_cluster(tmp_path: Path, settings: LauncherSettings) -> None:
    cluster = Cluster(settings, three(tmp_path), {"node-1": 11, "node-3": 33})
    again = Cluster.from_record(settings, cluster.to_record())
    assert again.nodes == cluster.nodes
    assert again.pids == {"node-1": 11, "node-3": 33}
    assert again.url == ",".join(node.url for node in cluster.nodes)


def test_cluster_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PD_ES_CLUSTER_HEAP", "PD_ES_CLUSTER_NAME", "PD_ES_HEAP", "PD_ES_STOP_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    defaults = LauncherSettings()
    assert (defaults.cluster_heap, defaults.cluster_name, defaults.heap) == ("512m", "dev", "1g")
    assert defaults.stop_timeout_s == 30.0
    monkeypatch.setenv("PD_ES_CLUSTER_HEAP", "768m")
    monkeypatch.setenv("PD_ES_CLUSTER_NAME", "bench-2")
    monkeypatch.setenv("PD_ES_STOP_TIMEOUT", "5")
    given = LauncherSettings()
    assert (given.cluster_heap, given.cluster_name, given.stop_timeout_s) == ("768m", "bench-2", 5)
    monkeypatch.setenv("PD_ES_CLUSTER_NAME", "../elsewhere")
    with pytest.raises(ValueError, match="PD_ES_CLUSTER_NAME"):
        LauncherSettings()


@pytest.fixture
def stubborn_processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Stand-ins for the nodes of a half-started cluster, each in its own session like a node:
    one stops on SIGTERM, one ignores it."""
    processes = [
        subprocess.Popen(["sleep", "3600"], start_new_session=True),
        subprocess.Popen(
            ["sh", "-c", "trap '' TERM; echo trapped; exec sleep 3600"],
            start_new_session=True,
            stdout=subprocess.PIPE,
        ),
    ]
    assert processes[1].stdout is not None
    assert processes[1].stdout.readline() == b"trapped\n"  # SIGTERM is ignored from here on
    yield processes
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, 9)
        process.wait()


@pytest.fixture
def closed_ports() -> Iterator[list[tuple[int, int]]]:
    """Three (http, transport) port pairs held by sockets that are bound but never listen:
    connecting to them is refused."""
    sockets = [socket.socket() for _ in range(6)]
    for sock in sockets:
        sock.bind(("127.0.0.1", 0))
    ports = [int(sock.getsockname()[1]) for sock in sockets]
    yield list(zip(ports[::2], ports[1::2], strict=True))
    for sock in sockets:
        sock.close()


def test_stop_ends_every_recorded_process_of_a_half_started_cluster(
    tmp_path: Path,
    settings: LauncherSettings,
    stubborn_processes: list[subprocess.Popen[bytes]],
    closed_ports: list[tuple[int, int]],
) -> None:
    pids = {"node-1": stubborn_processes[0].pid, "node-2": stubborn_processes[1].pid}
    record = record_file(settings, 3)
    nodes = cluster_specs(
        home=tmp_path, base=tmp_path, cluster="pd-unit", heap="512m", ports=closed_ports
    )
    record.write_text(json.dumps(Cluster(settings, nodes, pids).to_record()))
    up, lines = status_lines(settings, 3)
    assert not up
    assert lines[:3] == [
        f"node-1 {nodes[0].url} pid {pids['node-1']} running",
        f"node-2 {nodes[1].url} pid {pids['node-2']} running",
        f"node-3 {nodes[2].url} pid None not running",
    ]
    assert lines[3].startswith("cluster not answering")
    assert stop_recorded(settings, 3)
    # node-2 ignores SIGTERM: it is gone only because stop went on to SIGKILL
    assert not any(pid_alive(pid) for pid in pids.values())
    assert not record.exists()
    assert status_lines(settings, 3) == (False, ["no cluster of 3 nodes running"])


def launcher(
    cache: Path, *args: str, timeout_s: float = 60, **env: str
) -> subprocess.CompletedProcess[str]:
    """`python -m devtools.es_launcher *args` with PD_CACHE_DIR=cache, in the environment of
    this run less the launcher's variables, plus ``env``."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in ("ELASTICSEARCH_URL", "PD_CACHE_DIR", "PD_ES_MODE", "PD_ES_CLUSTER_NAME")
    }
    return subprocess.run(
        [sys.executable, "-m", "devtools.es_launcher", *args],
        cwd=REPO_ROOT,
        env={**clean, "PD_CACHE_DIR": str(cache), **env},
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )


def test_the_launcher_without_a_cluster(tmp_path: Path) -> None:
    status = launcher(tmp_path, "status", "--nodes", "3")
    assert (status.returncode, status.stdout.strip()) == (1, "no cluster of 3 nodes running")
    stop = launcher(tmp_path, "stop", "--nodes", "3")
    assert (stop.returncode, stop.stdout.strip()) == (0, "no cluster of 3 nodes to stop")
    zero = launcher(tmp_path, "start", "--nodes", "0")
    assert zero.returncode == 2 and "--nodes is at least 1" in zero.stderr


def test_a_cluster_is_not_started_in_docker_mode(tmp_path: Path) -> None:
    result = launcher(tmp_path, "start", "--nodes", "3", PD_ES_MODE="docker")
    assert result.returncode == 1
    assert "a cluster (--nodes) runs from the local distribution" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_configured_address_is_the_cluster(tmp_path: Path) -> None:
    urls = "http://127.0.0.1:9201,http://127.0.0.1:9202"
    result = launcher(tmp_path, "start", "--nodes", "2", ELASTICSEARCH_URL=urls)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == urls
    assert not list(tmp_path.iterdir())  # nothing started, nothing recorded
