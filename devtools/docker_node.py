"""An Elasticsearch node in a Docker container, for when an engine answers and can provide the
image: started through testcontainers (the design card's container library), stopped by the
launcher, possibly from another process, through the Docker SDK testcontainers brings.

Host networking and free loopback ports: the machines this project runs on start dockerd
without a bridge (``--bridge=none --iptables=false``), so there are no published ports nor
container addresses, and every request stays on 127.0.0.1. testcontainers' reaper (Ryuk) is
off: its image comes from a registry these machines cannot reach, and the launcher removes its
container itself (``stop``). Whether the engine can be used is asked up front (the engine, then
the image present or pulled), so a missing registry is a one-line reason the launcher can act
on, never a traceback from the middle of a start.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import docker
from docker.errors import DockerException, ImageNotFound, NotFound
from testcontainers.core.config import testcontainers_config
from testcontainers.core.container import DockerContainer

from devtools.distribution import ES_VERSION, LauncherError
from devtools.local_node import free_port, healthy, java_options
from devtools.settings import LauncherSettings

ES_DOCKER_IMAGE = f"docker.elastic.co/elasticsearch/elasticsearch:{ES_VERSION}"
CONTAINER_PREFIX = "pd-dev-es-"
ENGINE_TIMEOUT_S = 10


def image_name(settings: LauncherSettings) -> str:
    return settings.docker_image or ES_DOCKER_IMAGE


def _last_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[-1] if lines else type(error).__name__


@contextmanager
def _engine(timeout_s: float = ENGINE_TIMEOUT_S) -> Iterator[docker.DockerClient]:
    client = docker.from_env(timeout=int(timeout_s))
    try:
        yield client
    finally:
        client.close()


def engine_problem() -> str | None:
    """Why no Docker engine can be used here, or None when one answers."""
    try:
        with _engine() as engine:
            engine.ping()
    except DockerException as error:
        return f"no Docker engine answers ({_last_line(error)})"
    return None


def image_problem(image: str, pull_timeout_s: float) -> str | None:
    """Why the engine cannot provide ``image`` (neither present nor pullable), or None."""
    try:
        with _engine(pull_timeout_s) as engine:
            try:
                engine.images.get(image)
            except ImageNotFound:
                engine.images.pull(image)
    except DockerException as error:
        return f"cannot pull {image}: {_last_line(error)}"
    return None


def remove(container: str) -> None:
    """Remove a container the launcher started (by id), also from another process."""
    try:
        with _engine(60) as engine:
            engine.containers.get(container).remove(force=True, v=True)
    except NotFound:
        pass


def start_docker(settings: LauncherSettings) -> tuple[str, str]:
    """Start a single node (security off) on free loopback ports, wait until it is healthy;
    (container id, url). Settings go in as dotted environment variables, which both the official
    image and the project's stand-in (containers/elasticsearch) turn into ``-E`` options."""
    testcontainers_config.ryuk_disabled = True
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
        "ES_JAVA_OPTS": java_options(settings, settings.heap),
    }
    node = DockerContainer(
        image_name(settings), name=f"{CONTAINER_PREFIX}{port}", env=options, network_mode="host"
    )
    try:
        node.start()
    except DockerException as error:
        raise LauncherError(f"docker run failed: {_last_line(error)}") from error
    container = node.get_wrapped_container()
    deadline = time.monotonic() + settings.start_timeout_s
    while time.monotonic() < deadline:
        if healthy(url):
            return str(container.id), url
        container.reload()
        if container.status != "running":
            break
        time.sleep(0.5)
    stdout, stderr = node.get_logs()
    tail = "\n".join((stdout + stderr).decode(errors="replace").splitlines()[-40:])
    node.stop()
    raise LauncherError(
        f"Elasticsearch in Docker did not become healthy at {url}:\n{tail or '(no log written)'}"
    )
