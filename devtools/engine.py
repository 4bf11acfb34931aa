"""A Docker engine for this project's machines, which have Debian's docker.io but no engine
running: ``dockerd --bridge=none --iptables=false``, so it creates no bridge, no NAT and no
firewall rules, and containers can only use host networking (every test request on 127.0.0.1).

``start`` does nothing when an engine already answers (it is not ours to stop); otherwise it
starts dockerd with its own pid file and log under the launcher's cache and waits until it
answers. ``stop`` stops only the dockerd this module started (its recorded pid), which stops its
containers first. Images stay in the engine's data root, so the next start finds the cached base
images.

Usage: ``python -m devtools.engine start|stop|status``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from core.processes import pid_alive
from devtools.distribution import LauncherError, cache_dir
from devtools.docker_node import engine_problem
from devtools.settings import LauncherSettings

DOCKERD_FLAGS = ("--bridge=none", "--iptables=false", "--ip6tables=false")
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 60.0


def _dir(settings: LauncherSettings) -> Path:
    return cache_dir(settings) / "dockerd"


def _state(settings: LauncherSettings) -> Path:
    return _dir(settings) / "engine.json"


def _running(pid: int) -> bool:
    """Alive and not a zombie (once ``start``'s process has exited, dockerd is nobody's child
    that waits for it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return pid_alive(pid)
    return state != "Z"


def _started_pid(settings: LauncherSettings) -> int | None:
    try:
        pid = json.loads(_state(settings).read_text()).get("pid")
    except (OSError, ValueError):
        return None
    return pid if isinstance(pid, int) and _running(pid) else None


def _log_tail(log: Path, lines: int = 20) -> str:
    text = log.read_text(errors="replace") if log.exists() else "(no log written)"
    return "\n".join(text.splitlines()[-lines:])


def start(settings: LauncherSettings | None = None) -> bool:
    """Make sure an engine answers; True when this call started it."""
    settings = settings or LauncherSettings()
    if engine_problem() is None:
        return False
    dockerd = shutil.which("dockerd", path=settings.path)
    if dockerd is None:
        raise LauncherError("no dockerd: install Debian's docker.io (apt-get install docker.io).")
    folder = _dir(settings)
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "dockerd.log"
    with open(log, "ab") as output:
        process = subprocess.Popen(
            [dockerd, *DOCKERD_FLAGS, "--pidfile", str(folder / "dockerd.pid")],
            stdout=output,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    _state(settings).write_text(json.dumps({"pid": process.pid}))
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            _state(settings).unlink(missing_ok=True)
            raise LauncherError(f"dockerd exited with code {process.returncode}:\n{_log_tail(log)}")
        if engine_problem() is None:
            return True
        time.sleep(0.5)
    stop(settings)
    raise LauncherError(f"dockerd did not answer within {START_TIMEOUT_S:.0f} s:\n{_log_tail(log)}")


def stop(settings: LauncherSettings | None = None) -> bool:
    """Stop the dockerd ``start`` started; True when there was one."""
    settings = settings or LauncherSettings()
    pid = _started_pid(settings)
    _state(settings).unlink(missing_ok=True)
    if pid is None:
        return False
    os.kill(pid, signal.SIGTERM)  # dockerd alone: it stops its containers and containerd itself
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while time.monotonic() < deadline and _running(pid):
        with contextlib.suppress(ChildProcessError):  # reap it when it is our child
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.2)
    if _running(pid):
        os.kill(pid, signal.SIGKILL)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("command", choices=["start", "stop", "status"])
    args = parser.parse_args(argv)
    try:
        if args.command == "start":
            print("engine started" if start() else "an engine already answers")
        elif args.command == "stop":
            print("engine stopped" if stop() else "no engine started here")
        else:
            problem = engine_problem()
            print(problem or "an engine answers")
            return 1 if problem else 0
    except LauncherError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
