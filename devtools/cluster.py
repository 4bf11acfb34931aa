"""A local Elasticsearch cluster for tests and benchmarks: N nodes on loopback from the same
distribution as the single node (devtools/local_node.py builds every node's command line), each
with its own data, logs and config under ``es-cluster/<name>-<N>/`` beside the single node's root,
never in it.

A ``Cluster`` starts its nodes and waits for green, kills one with SIGKILL and starts it again
with the same ports and data, says which node holds a primary of an index, and waits for a
health status with a bound; it reports every change of its pids (``on_change``), which the
launcher's cluster records (devtools/cluster_record.py).
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from core.processes import pid_alive
from devtools.distribution import LauncherError, install_home, node_root
from devtools.local_node import (
    KILL_WAIT_S,
    NodeSpec,
    free_ports,
    log_tail,
    prepare_dirs,
    signal_and_wait,
    spawn,
    terminate_all,
)
from devtools.settings import LauncherSettings

Status = Literal["green", "yellow", "red"]
REQUEST_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class ClusterNode:
    name: str
    spec: NodeSpec

    @property
    def url(self) -> str:
        return self.spec.url

    @property
    def data_dir(self) -> Path:
        return self.spec.data_dir


def cluster_label(settings: LauncherSettings, count: int) -> str:
    return f"{settings.cluster_name}-{count}"


def clusters_root(settings: LauncherSettings) -> Path:
    """Beside the single node's root (so as reachable by the node user), holding the cluster's
    own unpacked distribution and one directory per cluster."""
    return node_root(settings).parent / "es-cluster"


def cluster_specs(
    *, home: Path, base: Path, cluster: str, heap: str, ports: Sequence[tuple[int, int]]
) -> list[ClusterNode]:
    """One node per (http, transport) port pair, all masters-eligible, discovering each other on
    127.0.0.1."""
    names = [f"node-{number}" for number in range(1, len(ports) + 1)]
    shared = {
        "cluster.name": cluster,
        "discovery.seed_hosts": ",".join(f"127.0.0.1:{transport}" for _, transport in ports),
        "cluster.initial_master_nodes": ",".join(names),
    }
    return [
        ClusterNode(
            name=name,
            spec=NodeSpec(
                home=home,
                root=base / name,
                http_port=http,
                transport_port=transport,
                heap=heap,
                options={**shared, "node.name": name},
                own_config=True,
            ),
        )
        for name, (http, transport) in zip(names, ports, strict=True)
    ]


def plan(settings: LauncherSettings, count: int) -> list[ClusterNode]:
    """The nodes of a new cluster of ``count`` on free loopback ports (unpacks the distribution
    for clusters the first time)."""
    if count < 2:
        raise LauncherError("a cluster has at least 2 nodes (one node: start without --nodes)")
    label = cluster_label(settings, count)
    ports = free_ports(2 * count)
    return cluster_specs(
        home=install_home(settings, clusters_root(settings)),
        base=clusters_root(settings) / label,
        cluster=f"provider-directory-{label}",
        heap=settings.cluster_heap,
        ports=list(zip(ports[::2], ports[1::2], strict=True)),
    )


def _get_json(url: str, timeout_s: float = REQUEST_TIMEOUT_S) -> Any:
    """GET and parse; a 408 (a health wait that timed out) still has the health as its body."""
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        if error.code == 408:
            return json.loads(error.read())
        raise


class Cluster:
    """The nodes of one cluster and the processes running them (pids by node name)."""

    def __init__(
        self,
        settings: LauncherSettings,
        nodes: Sequence[ClusterNode],
        pids: Mapping[str, int] | None = None,
        on_change: Callable[[Cluster], None] | None = None,
    ) -> None:
        self.settings = settings
        self.nodes = list(nodes)
        self.pids: dict[str, int] = dict(pids or {})
        self._processes: dict[str, subprocess.Popen[bytes]] = {}
        self._killed: set[str] = set()  # on purpose: their exit is no failure
        self._on_change = on_change

    @property
    def urls(self) -> list[str]:
        return [node.url for node in self.nodes]

    @property
    def url(self) -> str:
        """What ELASTICSEARCH_URL takes: every node, comma-separated."""
        return ",".join(self.urls)

    def node(self, name: str) -> ClusterNode:
        return next(node for node in self.nodes if node.name == name)

    def alive(self, name: str) -> bool:
        process = self._processes.get(name)
        if process is not None:
            return process.poll() is None
        pid = self.pids.get(name)
        return pid is not None and pid_alive(pid)

    def start_node(self, name: str, *, keep_log: bool = False) -> None:
        """Spawn one node with its spec (same ports and data as before); no wait."""
        if self.alive(name):
            raise LauncherError(f"{name} is already running (pid {self.pids[name]})")
        spec = self.node(name).spec
        prepare_dirs(spec)
        process = spawn(self.settings, spec, keep_log=keep_log)
        self._processes[name] = process
        self._killed.discard(name)
        self.pids[name] = process.pid
        if self._on_change is not None:
            self._on_change(self)

    def start(self) -> None:
        """Spawn every node and wait until the cluster is green with all of them. On failure
        the nodes are left running: the caller stops them (``stop``)."""
        for node in self.nodes:
            self.start_node(node.name)
        self.wait_for("green", timeout_s=self.settings.start_timeout_s)

    def restart(self, name: str) -> None:
        self.start_node(name, keep_log=True)

    def kill(self, name: str) -> None:
        """SIGKILL to the node's whole process group (the launcher script and the server JVM),
        and wait until it is gone."""
        self._killed.add(name)
        signal_and_wait([self.pids[name]], signal.SIGKILL, KILL_WAIT_S)

    def stop(self, timeout_s: float | None = None) -> None:
        """SIGTERM to every node, SIGKILL to those still alive after the bound; all reaped."""
        bound = self.settings.stop_timeout_s if timeout_s is None else timeout_s
        terminate_all(self.pids.values(), bound)
        for process in self._processes.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=KILL_WAIT_S)

    def _ask(self, path: str, timeout_s: float = REQUEST_TIMEOUT_S) -> Any:
        """The first answer of a live node to GET ``path``."""
        problem: Exception = LauncherError("no node of the cluster is running")
        for node in self.nodes:
            if not self.alive(node.name):
                continue
            try:
                return _get_json(f"{node.url}{path}", timeout_s)
            except (urllib.error.URLError, OSError, ValueError) as error:
                problem = error
        raise LauncherError(f"no node answered {path}: {problem}")

    def health(self) -> dict[str, Any]:
        answer: dict[str, Any] = self._ask("/_cluster/health")
        return answer

    def wait_for(self, status: Status, *, nodes: int | None = None, timeout_s: float) -> float:
        """Seconds until the cluster is at least ``status`` with ``nodes`` nodes (default all);
        LauncherError after ``timeout_s``, naming what was last seen and the nodes that died."""
        expected = len(self.nodes) if nodes is None else nodes
        started = time.monotonic()
        deadline = started + timeout_s
        last: object = "no answer"
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            wait = max(0.1, min(1.0, remaining))
            query = (
                f"wait_for_status={status}&wait_for_nodes={expected}&timeout={wait * 1000:.0f}ms"
            )
            try:
                answer = self._ask(f"/_cluster/health?{query}", wait + REQUEST_TIMEOUT_S)
            except LauncherError as error:
                last = error
                self._raise_if_exited()
                time.sleep(0.2)
                continue
            if not answer.get("timed_out", True):
                return time.monotonic() - started
            last = f"{answer.get('status')} with {answer.get('number_of_nodes')} nodes"
            self._raise_if_exited()
        raise LauncherError(
            f"cluster not {status} with {expected} nodes after {timeout_s:.0f} s ({last})"
        )

    def _raise_if_exited(self) -> None:
        for name, process in self._processes.items():
            if name not in self._killed and process.poll() is not None:
                spec = self.node(name).spec
                raise LauncherError(
                    f"{name} exited with code {process.returncode}:\n{log_tail(spec)}"
                )

    def primaries(self, index: str) -> dict[int, str]:
        """Shard number -> name of the node holding its started primary (``index`` may be an
        alias)."""
        rows = self._ask(f"/_cat/shards/{index}?format=json&h=shard,prirep,state,node")
        return {
            int(row["shard"]): str(row["node"])
            for row in rows
            if row["prirep"] == "p" and row["state"] == "STARTED"
        }

    def master(self) -> str:
        [row] = self._ask("/_cat/master?format=json&h=node")
        return str(row["node"])

    def to_record(self) -> dict[str, Any]:
        """What ``from_record`` needs to act on the cluster from another process."""
        return {
            "kind": "cluster",
            "nodes": [
                {
                    "name": node.name,
                    "pid": self.pids.get(node.name),
                    "url": node.url,
                    "spec": {
                        **asdict(node.spec),
                        "home": str(node.spec.home),
                        "root": str(node.spec.root),
                    },
                }
                for node in self.nodes
            ],
        }

    @classmethod
    def from_record(
        cls,
        settings: LauncherSettings,
        record: Mapping[str, Any],
        on_change: Callable[[Cluster], None] | None = None,
    ) -> Cluster:
        nodes = [
            ClusterNode(
                name=str(entry["name"]),
                spec=NodeSpec(
                    **{
                        **entry["spec"],
                        "home": Path(entry["spec"]["home"]),
                        "root": Path(entry["spec"]["root"]),
                    }
                ),
            )
            for entry in record["nodes"]
        ]
        pids = {
            str(entry["name"]): entry["pid"]
            for entry in record["nodes"]
            if isinstance(entry["pid"], int)
        }
        return cls(settings, nodes, pids, on_change)
