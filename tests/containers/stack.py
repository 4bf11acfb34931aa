"""The compose stack as an operator runs it, for the container tests: docker-compose.yml with
docker-compose.host.yml (host networking on free loopback ports: this project's engines have no
bridge), under a project name of its own, through whichever compose command the machine has
(``docker compose``, else Debian's ``docker-compose``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from devtools.settings import REPO_ROOT

COMPOSE_FILES = ("docker-compose.yml", "docker-compose.host.yml")


def compose_command() -> list[str] | None:
    """``docker compose`` (v2), else ``docker-compose`` (v1), else None."""
    v2 = subprocess.run(["docker", "compose", "version"], capture_output=True, check=False)
    if v2.returncode == 0:
        return ["docker", "compose"]
    return ["docker-compose"] if shutil.which("docker-compose") else None


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any
    headers: dict[str, str]


@dataclass(frozen=True)
class Stack:
    command: list[str]
    project: str
    env: dict[str, str]
    api_url: str

    def compose(
        self, *args: str, check: bool = True, timeout: float = 600
    ) -> subprocess.CompletedProcess[str]:
        files = [part for name in COMPOSE_FILES for part in ("-f", str(REPO_ROOT / name))]
        done = subprocess.run(
            [*self.command, "-p", self.project, *files, *args],
            cwd=REPO_ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and done.returncode != 0:
            raise AssertionError(
                f"compose {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
            )
        return done

    def container(self, service: str) -> str:
        return self.compose("ps", "-q", service).stdout.strip()

    def call(self, method: str, path: str, token: str | None = None, body: object = None) -> Answer:
        """One request to the API on 127.0.0.1; the JSON answer whatever its status."""
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.api_url}{path}", data=data, headers=headers, method=method
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return Answer(response.status, json.loads(response.read()), dict(response.headers))
        except urllib.error.HTTPError as error:
            return Answer(error.code, json.loads(error.read() or b"null"), dict(error.headers))


def health(container: str) -> str:
    """The engine's view of a container's healthcheck: starting, healthy, unhealthy, or its
    state when it is not running."""
    inspect = subprocess.run(
        ["docker", "inspect", "--format", "{{.State.Status}} {{.State.Health.Status}}", container],
        capture_output=True,
        text=True,
        check=False,
    )
    state, _, status = inspect.stdout.strip().partition(" ")
    return status if state == "running" else state or "gone"


def wait_healthy(container: str, timeout_s: float) -> float:
    """Seconds until the container was healthy; AssertionError when it was not in time."""
    start = time.monotonic()
    while time.monotonic() - start < timeout_s:
        status = health(container)
        if status == "healthy":
            return time.monotonic() - start
        if status not in ("starting", "unhealthy"):
            raise AssertionError(f"container {container} is {status}")
        time.sleep(1)
    raise AssertionError(f"container {container} not healthy after {timeout_s:.0f} s")


def wait_answering(url: str, timeout_s: float) -> None:
    """Until ``url`` answers 200 (polled, a fifth of a second apart): sooner than the engine's
    healthcheck says so, whose first probe comes an interval after the start."""
    start = time.monotonic()
    problem: object = None
    while time.monotonic() - start < timeout_s:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
                problem = response.status
        except (urllib.error.URLError, OSError) as error:
            problem = error
        time.sleep(0.2)
    raise AssertionError(f"{url} did not answer 200 in {timeout_s:.0f} s: {problem}")


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without anything that would steer compose or the stack."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("PD_", "COMPOSE_"))}
    keep.pop("ELASTICSEARCH_URL", None)
    return {**keep, **extra}
