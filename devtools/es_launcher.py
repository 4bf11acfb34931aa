"""Find or start the Elasticsearch node that development, tests and CI use (DESIGN 4).

Resolution order: ``ELASTICSEARCH_URL`` when set; else a testcontainers node when a Docker engine
answers; else a local single node from Maven Central's integ-test-zip (devtools/distribution.py),
kept in a git-ignored cache.

Usage: ``python -m devtools.es_launcher start|stop|status`` (``start`` prints the URL last).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from core.processes import pid_alive
from devtools.distribution import LauncherError, cache_dir
from devtools.docker_node import docker_available, start_docker
from devtools.local_node import healthy, start_local, terminate
from devtools.settings import LauncherSettings


@dataclass(frozen=True)
class Node:
    url: str
    kind: str  # "external" | "docker" | "local"
    started_here: bool


def _state_file(settings: LauncherSettings) -> Path:
    return cache_dir(settings) / "es-node.json"


def _write_state(settings: LauncherSettings, state: dict[str, object]) -> None:
    _state_file(settings).parent.mkdir(parents=True, exist_ok=True)
    _state_file(settings).write_text(json.dumps(state))


def _read_state(settings: LauncherSettings) -> dict[str, object] | None:
    try:
        state: dict[str, object] = json.loads(_state_file(settings).read_text())
        return state
    except (OSError, ValueError):
        return None


def running_node(settings: LauncherSettings) -> Node | None:
    """The node a previous ``start`` left running, if it still answers."""
    state = _read_state(settings)
    if state is None:
        return None
    url = str(state.get("url", ""))
    pid = state.get("pid")
    alive = pid_alive(pid) if isinstance(pid, int) else "container" in state
    if alive and healthy(url):
        return Node(url=url, kind=str(state.get("kind")), started_here=False)
    return None


def start(settings: LauncherSettings | None = None) -> Node:
    """Return a healthy node, starting one only when none is configured or running."""
    settings = settings or LauncherSettings()
    if settings.elasticsearch_url:
        return Node(url=settings.elasticsearch_url.rstrip("/"), kind="external", started_here=False)
    existing = running_node(settings)
    if existing is not None:
        return existing
    stop(settings)  # clears a stale state file or a half-dead node
    if docker_available():
        container_id, url = start_docker()
        _write_state(settings, {"container": container_id, "url": url, "kind": "docker"})
        return Node(url=url, kind="docker", started_here=True)
    pid, url = start_local(settings)
    _write_state(settings, {"pid": pid, "url": url, "kind": "local"})
    return Node(url=url, kind="local", started_here=True)


def stop(settings: LauncherSettings | None = None) -> bool:
    """Stop the node recorded in the state file; True when one was stopped."""
    settings = settings or LauncherSettings()
    state = _read_state(settings)
    if state is None:
        return False
    if isinstance(state.get("pid"), int):
        terminate(int(str(state["pid"])))
    elif state.get("container"):
        subprocess.run(["docker", "rm", "-f", str(state["container"])], check=False)
    _state_file(settings).unlink(missing_ok=True)
    return True


def status(settings: LauncherSettings | None = None) -> tuple[bool, str]:
    """(healthy, a line saying which node and how it is)."""
    settings = settings or LauncherSettings()
    if settings.elasticsearch_url:
        url = settings.elasticsearch_url
        answers = healthy(url)
        return answers, f"external {url} {'healthy' if answers else 'not answering'}"
    node = running_node(settings)
    return (True, f"{node.kind} {node.url} healthy") if node else (False, "no node running")


def main(argv: list[str] | None = None) -> int:
    """Exit status: 0 done (status: a node answers), 1 failed (status: no node answers)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("command", choices=["start", "stop", "status"])
    args = parser.parse_args(argv)
    try:
        if args.command == "start":
            node = start()
            verb = "started" if node.started_here else "reusing"
            print(f"Elasticsearch {verb} ({node.kind}) at:", file=sys.stderr)
            print(node.url)
        elif args.command == "stop":
            print("stopped" if stop() else "no node to stop")
        else:
            healthy, line = status()
            print(line)
            return 0 if healthy else 1
    except LauncherError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
