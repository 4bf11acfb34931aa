"""Find or start the Elasticsearch node that development, tests and CI use (DESIGN 4).

``PD_ES_MODE`` chooses: ``url`` (``ELASTICSEARCH_URL``), ``docker`` (a container,
devtools/docker_node.py) or ``local`` (a single node from Maven Central's integ-test-zip,
devtools/local_node.py, kept in a git-ignored cache). Unset (``auto``): ``ELASTICSEARCH_URL`` when
set; else Docker when an engine answers and can provide the image; else local. An engine that
answers but cannot provide the image (no registry reachable, as on this project's machines) is
worth one line on stderr, not a failure: the local node is what the developer gets.

``--nodes N`` (N > 1) is a local cluster instead (devtools/cluster.py): ``start`` prints its nodes'
URLs, comma-separated, as ELASTICSEARCH_URL takes them; ``stop`` and ``status`` with the same N
act on it. A cluster runs only from the local distribution (or is ``ELASTICSEARCH_URL``'s own).

Usage: ``python -m devtools.es_launcher start|stop|status [--nodes N]`` (``start`` prints the URL
last).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from core.processes import pid_alive
from devtools import cluster_record
from devtools.distribution import LauncherError, cache_dir
from devtools.docker_node import engine_problem, image_name, image_problem, remove, start_docker
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


def _external(settings: LauncherSettings) -> Node:
    if not settings.elasticsearch_url:
        raise LauncherError("PD_ES_MODE=url needs ELASTICSEARCH_URL (the node's address).")
    return Node(url=settings.elasticsearch_url.rstrip("/"), kind="external", started_here=False)


def _docker_problem(settings: LauncherSettings) -> tuple[bool, str | None]:
    """(an engine answers, why Docker cannot be used or None)."""
    engine = engine_problem()
    if engine is not None:
        return False, engine
    return True, image_problem(image_name(settings), settings.pull_timeout_s)


def start(settings: LauncherSettings | None = None) -> Node:
    """Return a healthy node, starting one only when none is configured or running."""
    settings = settings or LauncherSettings()
    if settings.mode == "url" or (settings.mode == "auto" and settings.elasticsearch_url):
        return _external(settings)
    existing = running_node(settings)
    if existing is not None:
        if settings.mode not in ("auto", existing.kind):
            raise LauncherError(
                f"PD_ES_MODE={settings.mode}, but a {existing.kind} node is running at "
                f"{existing.url}: stop it first (python -m devtools.es_launcher stop)."
            )
        return existing
    stop(settings)  # clears a stale state file or a half-dead node
    if settings.mode in ("auto", "docker"):
        engine_answers, problem = _docker_problem(settings)
        if problem is None:
            container_id, url = start_docker(settings)
            _write_state(settings, {"container": container_id, "url": url, "kind": "docker"})
            return Node(url=url, kind="docker", started_here=True)
        if settings.mode == "docker":
            raise LauncherError(f"PD_ES_MODE=docker: {problem}.")
        if engine_answers:
            print(f"note: {problem}; using a local node instead.", file=sys.stderr)
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
        terminate(int(str(state["pid"])), settings.stop_timeout_s)
    elif state.get("container"):
        remove(str(state["container"]))
    _state_file(settings).unlink(missing_ok=True)
    return True


def status(settings: LauncherSettings | None = None) -> tuple[bool, str]:
    """(healthy, a line saying which node and how it is)."""
    settings = settings or LauncherSettings()
    if settings.mode == "url" or (settings.mode == "auto" and settings.elasticsearch_url):
        url = settings.elasticsearch_url or "(ELASTICSEARCH_URL not set)"
        answers = healthy(url)
        return answers, f"external {url} {'healthy' if answers else 'not answering'}"
    node = running_node(settings)
    return (True, f"{node.kind} {node.url} healthy") if node else (False, "no node running")


def start_cluster(count: int, settings: LauncherSettings | None = None) -> Node:
    """A healthy local cluster of ``count`` nodes (its URLs in ``url``), or ELASTICSEARCH_URL as
    it is when that is the configured mode."""
    settings = settings or LauncherSettings()
    if settings.mode == "url" or (settings.mode == "auto" and settings.elasticsearch_url):
        return _external(settings)
    if settings.mode == "docker":
        raise LauncherError(
            "PD_ES_MODE=docker starts a single node; a cluster (--nodes) runs from the local "
            "distribution (PD_ES_MODE=local or unset)."
        )
    started, here = cluster_record.start_recorded(settings, count)
    return Node(url=started.url, kind=f"cluster of {count} local nodes", started_here=here)


def _run(command: str, nodes: int) -> int:
    if command == "start":
        node = start_cluster(nodes) if nodes > 1 else start()
        verb = "started" if node.started_here else "reusing"
        print(f"Elasticsearch {verb} ({node.kind}) at:", file=sys.stderr)
        print(node.url)
        return 0
    if command == "stop":
        if nodes == 1:
            print("stopped" if stop() else "no node to stop")
        else:
            stopped = cluster_record.stop_recorded(LauncherSettings(), nodes)
            print("stopped" if stopped else f"no cluster of {nodes} nodes to stop")
        return 0
    if nodes == 1:
        up, line = status()
        lines = [line]
    else:
        up, lines = cluster_record.status_lines(LauncherSettings(), nodes)
    print("\n".join(lines))
    return 0 if up else 1


def main(argv: list[str] | None = None) -> int:
    """Exit status: 0 done (status: the node or every node of the cluster answers), 1 failed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("command", choices=["start", "stop", "status"])
    parser.add_argument(
        "--nodes", type=int, default=1, help="1: the single node (default); N > 1: a local cluster"
    )
    args = parser.parse_args(argv)
    if args.nodes < 1:
        parser.error("--nodes is at least 1")
    try:
        return _run(args.command, args.nodes)
    except LauncherError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except ValidationError as error:  # a setting with a bad value: name it, no traceback
        for problem in error.errors():
            where = ".".join(str(part) for part in problem["loc"])
            print(f"error: {where}: {problem['msg']}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
