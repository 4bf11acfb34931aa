"""Find or start the Elasticsearch node that development, tests and CI use (DESIGN 4).

Resolution order: ``ELASTICSEARCH_URL`` when set; else a testcontainers node when a Docker engine
answers; else a local single node from Maven Central's integ-test-zip, kept in a git-ignored cache.

Usage: ``python -m core.es_launcher start|stop|status`` (``start`` prints the URL last).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from core.processes import pid_alive

ES_VERSION = "8.19.21"
ES_ARTIFACT = f"org.elasticsearch.distribution.integ-test-zip:elasticsearch:{ES_VERSION}:zip"
ES_DOCKER_IMAGE = f"docker.elastic.co/elasticsearch/elasticsearch:{ES_VERSION}"
NODE_USER = "pd-elasticsearch"
REPO_ROOT = Path(__file__).resolve().parent.parent
# Used when the node user cannot traverse the checkout (e.g. a clone under /root or mktemp -d).
FALLBACK_NODE_ROOT = Path("/var/tmp/provider-directory")
HEALTH_TIMEOUT_S = float(os.environ.get("PD_ES_START_TIMEOUT", "120"))


class LauncherError(RuntimeError):
    """Elasticsearch could not be provided; the message says why and what to do."""


@dataclass(frozen=True)
class Node:
    url: str
    kind: str  # "external" | "docker" | "local"
    started_here: bool


def cache_dir() -> Path:
    return Path(os.environ.get("PD_CACHE_DIR", REPO_ROOT / ".cache")).resolve()


def _state_file() -> Path:
    return cache_dir() / "es-node.json"


def _is_root() -> bool:
    return os.geteuid() == 0


def _reachable_by_others(path: Path) -> bool:
    """True when a non-owner can traverse every directory from / down to ``path``."""
    for part in [path, *path.parents]:
        if part.exists() and not part.stat().st_mode & stat.S_IXOTH:
            return False
    return True


def node_root() -> Path:
    """Where the unpacked distribution, data and logs live (must be reachable by the node user)."""
    preferred = cache_dir() / "es-node"
    if not _is_root() or _reachable_by_others(preferred.parent):
        return preferred
    # One node root per checkout, so two clones never share a data directory.
    checkout = hashlib.sha1(str(cache_dir()).encode()).hexdigest()[:10]
    return FALLBACK_NODE_ROOT / checkout / "es-node"


def _healthy(url: str, timeout_s: float = 2.0) -> bool:
    try:
        health_url = f"{url}/_cluster/health?wait_for_status=yellow&timeout=1s"
        with urllib.request.urlopen(health_url, timeout=timeout_s) as response:
            status = json.loads(response.read()).get("status")
            return status in ("green", "yellow")
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _java_home() -> str:
    for var in ("ES_JAVA_HOME", "JAVA_HOME"):
        if os.environ.get(var):
            return os.environ[var]
    java = shutil.which("java")
    if java is None:
        raise LauncherError("No JDK found: install OpenJDK 17+ or set ES_JAVA_HOME.")
    return str(Path(java).resolve().parent.parent)


def _fetch_distribution() -> Path:
    dist_dir = cache_dir() / "dist"
    archive = dist_dir / f"elasticsearch-{ES_VERSION}.zip"
    if archive.exists():
        return archive
    if shutil.which("mvn") is None:
        raise LauncherError("Maven (mvn) is needed to fetch Elasticsearch from Maven Central.")
    print(f"Fetching Elasticsearch {ES_VERSION} from Maven Central ...", file=sys.stderr)
    dist_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            "mvn",
            "-q",
            "dependency:copy",
            f"-Dartifact={ES_ARTIFACT}",
            f"-DoutputDirectory={dist_dir}",
        ],
        check=True,
    )
    return archive


def _install_home(root: Path) -> Path:
    home = root / f"elasticsearch-{ES_VERSION}"
    if (home / "bin" / "elasticsearch").exists():
        return home
    archive = _fetch_distribution()
    root.mkdir(parents=True, exist_ok=True)
    # unzip keeps the executable bits that Python's zipfile drops.
    subprocess.run(["unzip", "-q", "-o", str(archive), "-d", str(root)], check=True)
    return home


def _ensure_node_user() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(NODE_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", NODE_USER],
            check=True,
        )
        return pwd.getpwnam(NODE_USER)


def _prepare_for_user(root: Path) -> pwd.struct_passwd | None:
    if not _is_root():
        return None
    user = _ensure_node_user()
    for path in [root, *root.rglob("*")]:
        os.lchown(path, user.pw_uid, user.pw_gid)
    for parent in root.parents:
        if parent.exists() and not parent.stat().st_mode & stat.S_IXOTH:
            raise LauncherError(
                f"User {NODE_USER} cannot traverse {parent}; set PD_CACHE_DIR to a directory that "
                "every user can reach (e.g. under /var/tmp)."
            )
    return user


def _log_tail(root: Path, lines: int = 40) -> str:
    log = root / "stdout.log"
    if not log.exists():
        return "(no log written)"
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def _start_local() -> Node:
    root = node_root()
    home = _install_home(root)
    for sub in ("data", "logs"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    user = _prepare_for_user(root)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    heap = os.environ.get("PD_ES_HEAP", "1g")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "ES_JAVA_HOME": _java_home(),
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
        f"transport.port={_free_port()}",
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
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise LauncherError(
                f"Elasticsearch exited with code {process.returncode}:\n{_log_tail(root)}"
            )
        if _healthy(url):
            _state_file().parent.mkdir(parents=True, exist_ok=True)
            _state_file().write_text(json.dumps({"pid": process.pid, "url": url, "kind": "local"}))
            return Node(url=url, kind="local", started_here=True)
        time.sleep(0.5)
    _terminate(process.pid)
    raise LauncherError(
        f"Elasticsearch not healthy after {HEALTH_TIMEOUT_S:.0f}s:\n{_log_tail(root)}"
    )


def _docker_available() -> bool:
    if shutil.which("docker") is None:
        return False
    probe = subprocess.run(["docker", "info"], capture_output=True, timeout=10, check=False)
    return probe.returncode == 0


def _start_docker() -> Node:
    # Kept running after this process exits (no reaper); `stop` removes it by id.
    os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")
    from testcontainers.community.elasticsearch import ElasticSearchContainer

    container = ElasticSearchContainer(ES_DOCKER_IMAGE, mem_limit="2g")
    container.with_env("xpack.security.enabled", "false")
    container.start()
    url = f"http://{container.get_container_host_ip()}:{container.get_exposed_port(container.port)}"
    container_id = container.get_wrapped_container().id
    _state_file().parent.mkdir(parents=True, exist_ok=True)
    _state_file().write_text(json.dumps({"container": container_id, "url": url, "kind": "docker"}))
    return Node(url=url, kind="docker", started_here=True)


def _read_state() -> dict[str, object] | None:
    try:
        state: dict[str, object] = json.loads(_state_file().read_text())
        return state
    except (OSError, ValueError):
        return None


def running_node() -> Node | None:
    """The node a previous ``start`` left running, if it still answers."""
    state = _read_state()
    if state is None:
        return None
    url = str(state.get("url", ""))
    pid = state.get("pid")
    alive = pid_alive(pid) if isinstance(pid, int) else "container" in state
    if alive and _healthy(url):
        return Node(url=url, kind=str(state.get("kind")), started_here=False)
    return None


def start() -> Node:
    """Return a healthy node, starting one only when none is configured or running."""
    external = os.environ.get("ELASTICSEARCH_URL")
    if external:
        return Node(url=external.rstrip("/"), kind="external", started_here=False)
    existing = running_node()
    if existing is not None:
        return existing
    stop()  # clears a stale pid file or a half-dead node
    return _start_docker() if _docker_available() else _start_local()


def _terminate(pid: int, timeout_s: float = 30.0) -> None:
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


def stop() -> bool:
    """Stop the node recorded in the state file; True when one was stopped."""
    state = _read_state()
    if state is None:
        return False
    if isinstance(state.get("pid"), int):
        _terminate(int(str(state["pid"])))
    elif state.get("container"):
        subprocess.run(["docker", "rm", "-f", str(state["container"])], check=False)
    _state_file().unlink(missing_ok=True)
    return True


def status() -> str:
    if os.environ.get("ELASTICSEARCH_URL"):
        url = os.environ["ELASTICSEARCH_URL"]
        return f"external {url} {'healthy' if _healthy(url) else 'not answering'}"
    node = running_node()
    return f"{node.kind} {node.url} healthy" if node else "no node running"


def main(argv: list[str] | None = None) -> int:
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
            print(status())
    except LauncherError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
