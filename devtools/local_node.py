"""A local single-node Elasticsearch as a child process: started from the distribution on free
loopback ports, waited for until healthy (with the tail of its log when it is not), stopped."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
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


def _log_tail(root: Path, lines: int = 40) -> str:
    log = root / "stdout.log"
    if not log.exists():
        return "(no log written)"
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def start_local(settings: LauncherSettings) -> tuple[int, str]:
    """Start a node from the distribution, wait until it is healthy; (pid, url)."""
    root = node_root(settings)
    home = install_home(settings, root)
    for sub in ("data", "logs"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    user = prepare_for_user(root)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    heap = settings.heap
    env = {
        "PATH": settings.path,
        "ES_JAVA_HOME": java_home(settings),
        "ES_JAVA_OPTS": f"-Xms{heap} -Xmx{heap}",
        "HOME": str(root),
    }
    args = [
        str(home / "bin" / "elasticsearch"),
        "-E",
        "discovery.type=single-node",
        "-E",
        "xpack.security.enabled=false",
        "-E",
        "network.host=127.0.0.1",
        "-E",
        f"http.port={port}",
        "-E",
        f"transport.port={free_port()}",
        "-E",
        f"path.data={root / 'data'}",
        "-E",
        f"path.logs={root / 'logs'}",
        "-E",
        "cluster.routing.allocation.disk.threshold_enabled=false",
        "-E",
        "action.destructive_requires_name=false",
    ]
    with open(root / "stdout.log", "wb") as log:
        process = subprocess.Popen(
            args,
            env=env,
            cwd=root,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            user=user.pw_uid if user else None,
            group=user.pw_gid if user else None,
        )
    deadline = time.monotonic() + settings.start_timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise LauncherError(
                f"Elasticsearch exited with code {process.returncode}:\n{_log_tail(root)}"
            )
        if healthy(url):
            return process.pid, url
        time.sleep(0.5)
    terminate(process.pid)
    raise LauncherError(
        f"Elasticsearch not healthy after {settings.start_timeout_s:.0f}s:\n{_log_tail(root)}"
    )


def terminate(pid: int, timeout_s: float = 30.0) -> None:
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and pid_alive(pid):
        with contextlib.suppress(ChildProcessError):  # reap it if it is our child
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.2)
    if pid_alive(pid):
        os.killpg(pid, signal.SIGKILL)
