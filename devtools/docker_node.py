"""An Elasticsearch node in a Docker container, for when an engine answers and can provide the
image.

Driven through the ``docker`` command rather than a client library, with host networking and free
loopback ports: the machines this project runs on start dockerd without a bridge
(``--bridge=none --iptables=false``), so there are no published ports nor container addresses, and
every request stays on 127.0.0.1. Whether the engine can be used is asked up front (``docker
info``, then the image present or pulled), so a missing registry is a one-line reason the
launcher can act on, never a traceback from the middle of a start.
"""

from __future__ import annotations

import shutil
import subprocess
import time

from devtools.distribution import ES_VERSION, LauncherError
from devtools.local_node import free_port, healthy
from devtools.settings import LauncherSettings

ES_DOCKER_IMAGE = f"docker.elastic.co/elasticsearch/elasticsearch:{ES_VERSION}"
CONTAINER_PREFIX = "pd-dev-es-"
ENGINE_TIMEOUT_S = 10.0


def image_name(settings: LauncherSettings) -> str:
    return settings.docker_image or ES_DOCKER_IMAGE


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no message"


def engine_problem() -> str | None:
    """Why no Docker engine can be used here, or None when one answers."""
    if shutil.which("docker") is None:
        return "no docker command on PATH"
    try:
        probe = subprocess.run(
            ["docker", "info"],
            capture_output=True,
            text=True,
            timeout=ENGINE_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"the Docker engine did not answer within {ENGINE_TIMEOUT_S:.0f} s"
    if probe.returncode != 0:
        return f"no Docker engine answers ({_last_line(probe.stderr)})"
    return None


def image_problem(image: str, pull_timeout_s: float) -> str | None:
    """Why the engine cannot provide ``image`` (neither present nor pullable), or None."""
    present = subprocess.run(
        ["docker", "image", "inspect", image],
        capture_output=True,
        timeout=ENGINE_TIMEOUT_S,
        check=False,
    )
    if present.returncode == 0:
        return None
    try:
        pull = subprocess.run(
            ["docker", "pull", "--quiet", image],
            capture_output=True,
            text=True,
            timeout=pull_timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"pulling {image} took more than {pull_timeout_s:.0f} s"
    if pull.returncode != 0:
        return f"cannot pull {image}: {_last_line(pull.stderr)}"
    return None


def _logs_tail(container: str, lines: int = 40) -> str:
    logs = subprocess.run(
        ["docker", "logs", "--tail", str(lines), container],
        capture_output=True,
        text=True,
        timeout=ENGINE_TIMEOUT_S,
        check=False,
    )
    return (logs.stdout + logs.stderr).strip() or "(no log written)"


def remove(container: str) -> None:
    subprocess.run(
        ["docker", "rm", "--force", "--volumes", container],
        capture_output=True,
        timeout=60,
        check=False,
    )


def _running(container: str) -> bool:
    state = subprocess.run(
        ["docker", "inspect", "--format", "{{.State.Running}}", container],
        capture_output=True,
        text=True,
        timeout=ENGINE_TIMEOUT_S,
        check=False,
    )
    return state.stdout.strip() == "true"


def start_docker(settings: LauncherSettings) -> tuple[str, str]:
    """Start a single node (security off) on free loopback ports, wait until it is healthy;
    (container id, url). Settings go in as dotted environment variables, which both the official
    image and the project's stand-in (containers/elasticsearch) turn into ``-E`` options."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    options = {
        "discovery.type": "single-node",
        "xpack.security.enabled": "false",
        "network.host": "127.0.0.1",
        "http.port": str(port),
        "transport.port": str(free_port()),
        "cluster.routing.allocation.disk.threshold_enabled": "false",
        "action.destructive_requires_name": "false",
        "ES_JAVA_OPTS": f"-Xms{settings.heap} -Xmx{settings.heap}",
    }
    args = ["docker", "run", "--detach", "--network", "host", "--name", f"{CONTAINER_PREFIX}{port}"]
    for key, value in options.items():
        args += ["--env", f"{key}={value}"]
    run = subprocess.run(
        [*args, image_name(settings)], capture_output=True, text=True, timeout=120, check=False
    )
    if run.returncode != 0:
        raise LauncherError(f"docker run failed: {_last_line(run.stderr)}")
    container = run.stdout.strip()
    deadline = time.monotonic() + settings.start_timeout_s
    while time.monotonic() < deadline:
        if healthy(url):
            return container, url
        if not _running(container):
            break
        time.sleep(0.5)
    tail = _logs_tail(container)
    remove(container)
    raise LauncherError(f"Elasticsearch in Docker did not become healthy at {url}:\n{tail}")
