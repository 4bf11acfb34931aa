"""Elasticsearch nodes as child processes of this machine: the one way a node's command line and
environment are built (a single node here, every node of devtools/cluster.py), started from the
distribution on free loopback ports, waited for until healthy (with the tail of its log when it
is not), stopped. The distribution's download is distribution.py, the cluster is cluster.py."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from core.processes import pid_alive
from devtools.distribution import (
    LauncherError,
    install_home,
    java_home,
    node_root,
    prepare_for_user,
)
from devtools.settings import LauncherSettings

# What every development node runs with, alone or in a cluster.
COMMON_OPTIONS: Mapping[str, str] = {
    "xpack.security.enabled": "false",
    "network.host": "127.0.0.1",
    "cluster.routing.allocation.disk.threshold_enabled": "false",
    "action.destructive_requires_name": "false",
}
SINGLE_NODE_OPTIONS: Mapping[str, str] = {"discovery.type": "single-node"}
STOP_TIMEOUT_S = 30.0
KILL_WAIT_S = 10.0  # a killed JVM takes a moment to give its memory back and be gone


@dataclass(frozen=True)
class NodeSpec:
    """Everything one node process starts with; starting the same spec again brings back the same
    node (ports, data)."""

    home: Path  # the unpacked distribution
    root: Path  # working directory and HOME: data/, logs/, stdout.log (and config/ if given)
    http_port: int
    transport_port: int
    heap: str
    options: Mapping[str, str] = field(default_factory=dict)  # on top of COMMON_OPTIONS
    own_config: bool = False  # a copy of the distribution's config/ under root (ES_PATH_CONF)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def log_file(self) -> Path:
        return self.root / "stdout.log"


def command_line(spec: NodeSpec) -> list[str]:
    options = {
        **COMMON_OPTIONS,
        "http.port": str(spec.http_port),
        "transport.port": str(spec.transport_port),
        "path.data": str(spec.data_dir),
        "path.logs": str(spec.root / "logs"),
        **spec.options,
    }
    args = [str(spec.home / "bin" / "elasticsearch")]
    for key, value in options.items():
        args += ["-E", f"{key}={value}"]
    return args


def java_options(settings: LauncherSettings, heap: str) -> str:
    """ES_JAVA_OPTS of a node: its heap, and the operator's options (PD_ES_JVM_OPTIONS)."""
    return f"-Xms{heap} -Xmx{heap} {settings.jvm_options}".strip()


def environment(settings: LauncherSettings, spec: NodeSpec) -> dict[str, str]:
    env = {
        "PATH": settings.path,
        "ES_JAVA_HOME": java_home(settings),
        "ES_JAVA_OPTS": java_options(settings, spec.heap),
        "HOME": str(spec.root),
    }
    if spec.own_config:
        env["ES_PATH_CONF"] = str(spec.root / "config")
    return env


def prepare_dirs(spec: NodeSpec) -> None:
    """The node's directories; its config (when its own) copied from the distribution once."""
    for sub in ("data", "logs"):
        (spec.root / sub).mkdir(parents=True, exist_ok=True)
    config = spec.root / "config"
    if spec.own_config and not config.exists():
        # Nodes sharing one distribution must not share a config dir: each writes its keystore.
        shutil.copytree(spec.home / "config", config)


def spawn(
    settings: LauncherSettings, spec: NodeSpec, *, keep_log: bool = False
) -> subprocess.Popen[bytes]:
    """Start the node in its own session (so its whole process group can be signalled) as the
    node user when this runs as root; ``keep_log`` appends to the log of a previous run."""
    user = prepare_for_user(spec.root)
    with open(spec.log_file, "ab" if keep_log else "wb") as log:
        return subprocess.Popen(
            command_line(spec),
            env=environment(settings, spec),
            cwd=spec.root,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            user=user.pw_uid if user else None,
            group=user.pw_gid if user else None,
        )


def healthy(url: str, timeout_s: float = 2.0) -> bool:
    try:
        health_url = f"{url}/_cluster/health?wait_for_status=yellow&timeout=1s"
        with urllib.request.urlopen(health_url, timeout=timeout_s) as response:
            status = json.loads(response.read()).get("status")
            return status in ("green", "yellow")
    except (urllib.error.URLError, OSError, ValueError):
        return False


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def free_ports(count: int) -> list[int]:
    """``count`` distinct free loopback ports (held together while chosen, so none repeats)."""
    with contextlib.ExitStack() as stack:
        ports = []
        for _ in range(count):
            sock = stack.enter_context(socket.socket())
            sock.bind(("127.0.0.1", 0))
            ports.append(int(sock.getsockname()[1]))
        return ports


def log_tail(spec: NodeSpec, lines: int = 40) -> str:
    if not spec.log_file.exists():
        return "(no log written)"
    return "\n".join(spec.log_file.read_text(errors="replace").splitlines()[-lines:])


def start_local(settings: LauncherSettings) -> tuple[int, str]:
    """Start a single node from the distribution, wait until it is healthy; (pid, url)."""
    root = node_root(settings)
    http_port, transport_port = free_ports(2)
    spec = NodeSpec(
        home=install_home(settings, root),
        root=root,
        http_port=http_port,
        transport_port=transport_port,
        heap=settings.heap,
        options=SINGLE_NODE_OPTIONS,
    )
    prepare_dirs(spec)
    process = spawn(settings, spec)
    deadline = time.monotonic() + settings.start_timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise LauncherError(
                f"Elasticsearch exited with code {process.returncode}:\n{log_tail(spec)}"
            )
        if healthy(spec.url):
            return process.pid, spec.url
        time.sleep(0.5)
    terminate(process.pid)
    raise LauncherError(
        f"Elasticsearch not healthy after {settings.start_timeout_s:.0f}s:\n{log_tail(spec)}"
    )


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):  # reap it if it is our child
        os.waitpid(pid, os.WNOHANG)


def kill_group(pid: int, sig: signal.Signals) -> None:
    """Signal the node's process group: the launcher script and the server JVM it started."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, sig)


def terminate_all(pids: Iterable[int], timeout_s: float = STOP_TIMEOUT_S) -> None:
    """SIGTERM to every node at once, SIGKILL to those still alive ``timeout_s`` later; returns
    once they are gone (or, after a SIGKILL, ``KILL_WAIT_S`` at the most)."""
    waiting = signal_and_wait(list(pids), signal.SIGTERM, timeout_s)
    signal_and_wait(waiting, signal.SIGKILL, KILL_WAIT_S)


def signal_and_wait(pids: list[int], sig: signal.Signals, timeout_s: float) -> list[int]:
    """Signal every pid's group and wait; the pids still alive after ``timeout_s``."""
    for pid in pids:
        kill_group(pid, sig)
    deadline = time.monotonic() + timeout_s
    while pids:
        for pid in pids:
            _reap(pid)
        pids = [pid for pid in pids if pid_alive(pid)]
        if not pids or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    return pids


def terminate(pid: int, timeout_s: float = STOP_TIMEOUT_S) -> None:
    terminate_all([pid], timeout_s)
