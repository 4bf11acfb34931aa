"""What every service-vs-Elasticsearch benchmark shares: the service as its own process (as
deployed), a load generator of N concurrent clients, both arms run in alternating slices, and
the Markdown table of latencies and rates, and starting and stopping the child processes the
benches drive.

It copies ``os.environ`` into the children it starts (they need PATH and the caller's
variables), setting only what the bench decides; it reads no setting of its own from it."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import aiohttp

from bench.profile import sampled
from devtools.settings import LauncherSettings

Call = Callable[[int], Awaitable[bool]]  # request number -> answered 200
Arms = Sequence[tuple[str, Call]]


@dataclass
class Stats:
    latencies_ms: list[float]
    errors: int
    seconds: float
    by_class: dict[str, list[float]] = field(default_factory=dict)  # latencies per query class

    def row(self, label: str, clients: int) -> str:
        lat = sorted(self.latencies_ms)

        rate = len(lat) / self.seconds
        return (
            f"| {label} | {clients} | {len(lat)} | {self.errors} | {percentile(lat, 0.50):.1f} | "
            f"{percentile(lat, 0.95):.1f} | {percentile(lat, 0.99):.1f} | {rate:.0f} |"
        )


def percentile(ordered: list[float], p: float) -> float:
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else float("nan")


def class_rows(label: str, clients: int, stats: Stats) -> list[str]:
    rows = []
    for name, latencies in sorted(stats.by_class.items()):
        lat = sorted(latencies)
        rows.append(
            f"| {label} | {clients} | {name} | {len(lat)} | {percentile(lat, 0.5):.1f} | "
            f"{percentile(lat, 0.95):.1f} | {percentile(lat, 0.99):.1f} |"
        )
    return rows


async def run_level(
    clients: int, seconds: float, call: Call, total: int, classes: Sequence[str] = ()
) -> Stats:
    """``clients`` concurrent loops of requests ``0..total-1`` in turn, for ``seconds``;
    ``classes[i]`` names the class of request ``i`` for the per-class figures."""
    latencies: list[float] = []
    by_class: dict[str, list[float]] = {}
    errors = 0
    deadline = time.perf_counter() + seconds

    async def worker(offset: int) -> None:
        nonlocal errors
        i = offset
        while True:  # one request at least, however late the loop gets here on a busy machine
            started = time.perf_counter()
            ok = await call(i % total)
            elapsed_ms = (time.perf_counter() - started) * 1000
            latencies.append(elapsed_ms)
            if classes:
                by_class.setdefault(classes[i % total], []).append(elapsed_ms)
            errors += not ok
            i += clients
            if time.perf_counter() >= deadline:
                return

    started = time.perf_counter()
    await asyncio.gather(*(worker(n) for n in range(clients)))
    return Stats(latencies, errors, time.perf_counter() - started, by_class)


async def compare(
    clients: int,
    seconds: float,
    arms: Arms,
    total: int,
    rounds: int = 5,
    classes: Sequence[str] = (),
) -> list[tuple[str, Stats]]:
    """Each arm for ``seconds`` in all, in ``rounds`` alternating slices, so that load from
    anything else on the machine falls on both arms alike."""
    merged = {label: Stats([], 0, 0.0) for label, _ in arms}
    for _ in range(rounds):
        for label, call in arms:
            stats = await run_level(clients, seconds / rounds, call, total, classes)
            merged[label].latencies_ms.extend(stats.latencies_ms)
            for name, latencies in stats.by_class.items():
                merged[label].by_class.setdefault(name, []).extend(latencies)
            merged[label].errors += stats.errors
            merged[label].seconds += stats.seconds
    return list(merged.items())


async def print_comparison(
    title: str,
    args: argparse.Namespace,
    arms: Arms,
    total: int,
    *,
    warm_up_clients: int,
    classes: Sequence[str] = (),
) -> None:
    """Warm both arms up (caches, JIT, connections), then one table row per arm and level, and
    with ``classes`` a second table per arm, level and class."""
    for _, call in arms:
        await run_level(warm_up_clients, args.warm_up, call, total)
    print(title + "\n")
    print("| target | clients | requests | errors | p50 ms | p95 ms | p99 ms | req/s |")
    print("|---|---|---|---|---|---|---|---|")
    per_class: list[str] = []
    for clients in args.levels:
        for label, stats in await compare(clients, args.seconds, arms, total, classes=classes):
            print(stats.row(label, clients), flush=True)
            per_class += class_rows(label, clients, stats)
    if per_class:
        print("\n| target | clients | query class | requests | p50 ms | p95 ms | p99 ms |")
        print("|---|---|---|---|---|---|---|")
        print("\n".join(per_class), flush=True)


async def answered(
    http: aiohttp.ClientSession, url: str, body: bytes, headers: dict[str, str]
) -> bool:
    """POST ``body``, read the whole answer; True when it is a 200."""
    async with http.post(url, data=body, headers=headers) as response:
        await response.read()
        return response.status == 200


def listening_socket(port: int) -> socket.socket:
    """127.0.0.1:``port`` bound and listening (0: any free port), for a child to serve on
    (``--fd``): the port is held from the moment it is chosen, so no other process can take it
    before the child serves, and a request sent before the child is up waits for it."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    return sock


def served_url(sock: socket.socket) -> str:
    return f"http://127.0.0.1:{sock.getsockname()[1]}"


def start_service(
    es_url: str,
    prefix: str,
    sock: socket.socket,
    log: IO[bytes] | int = subprocess.DEVNULL,
    es_timeout_s: float | None = None,
) -> subprocess.Popen[bytes]:
    """``provider-directory serve`` on ``sock`` (a listening socket it inherits), rate limiting
    off; its output (the JSON access and error log) to ``log``. ``es_timeout_s``: its
    Elasticsearch request timeout (default: the service's own, as deployed)."""
    env = {
        **os.environ,
        "ELASTICSEARCH_URL": es_url,
        "PD_INDEX_PREFIX": prefix,
        "PD_ENVIRONMENT": "development",
        "PD_RATE_LIMIT_PER_S": "0",  # measure the service, not its rate limiter
        "PD_METRICS_ENABLED": "true",
    }
    if es_timeout_s is not None:
        env["PD_ES_REQUEST_TIMEOUT_S"] = str(es_timeout_s)
    fd = sock.fileno()
    return subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--fd", str(fd)],
        env=env,
        stdout=log,
        stderr=log,
        pass_fds=(fd,),
    )


async def stop_child(process: asyncio.subprocess.Process, grace_s: float) -> None:
    """SIGTERM (the indexer then cleans up: deletes a new version, releases its lock, resumes
    refresh), SIGKILL after ``grace_s``; waits for it either way."""
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        process.terminate()
    try:
        await asyncio.wait_for(process.wait(), grace_s)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()


def stop_service(process: subprocess.Popen[bytes], grace_s: float = 10.0) -> None:
    """SIGTERM, then SIGKILL after ``grace_s``; waits for it either way."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# A guard against a child that hangs at start-up, not a measure of its speed.
READY_GUARD_S = 600.0


async def wait_ready(url: str, process: subprocess.Popen[bytes] | None = None) -> None:
    """Until ``url``/readyz answers 200; a clear error when ``process`` exits first. A request
    made before the server serves waits in its socket's queue (listening_socket)."""
    unbounded = aiohttp.ClientTimeout(total=None)
    async with asyncio.timeout(READY_GUARD_S), aiohttp.ClientSession(timeout=unbounded) as http:
        while process is None or process.poll() is None:
            try:
                async with http.get(f"{url}/readyz") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.2)
    raise RuntimeError(f"the server of {url} exited ({process.returncode}) before it was ready")


@asynccontextmanager
async def service_process(
    es_url: str,
    prefix: str,
    port: int,
    log: IO[bytes] | int = subprocess.DEVNULL,
    *,
    es_timeout_s: float | None = None,
) -> AsyncIterator[tuple[str, subprocess.Popen[bytes]]]:
    """The service on ``port`` (0: any free one) against ``es_url``/``prefix``, ready: its URL
    and process (for its pid); stopped on the way out, also on failure or cancellation.
    ``es_timeout_s`` as start_service takes it."""
    with listening_socket(port) as sock:
        url = served_url(sock)
        process = start_service(es_url, prefix, sock, log, es_timeout_s)
    # Closed here: the child holds the only copy, so its exit refuses what waits for it.
    try:
        await wait_ready(url, process)
        yield url, process
    finally:
        stop_service(process)


@asynccontextmanager
async def running_service(args: argparse.Namespace) -> AsyncIterator[str]:
    """The service on ``args.port`` against ``args.es_url``/``args.prefix``, ready; its URL;
    sampled by py-spy while it runs when ``args.profile`` names a path."""
    if getattr(args, "service_url", None):  # one already running: measured as it is
        yield str(args.service_url).rstrip("/")
        return
    async with service_process(
        args.es_url, args.prefix, args.port, es_timeout_s=getattr(args, "es_timeout", None)
    ) as (url, process):
        with sampled(process.pid, getattr(args, "profile", None)):
            yield url


def harness_parser(doc: str | None, levels: list[int], port: int) -> argparse.ArgumentParser:
    """The options every service-vs-Elasticsearch harness takes."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0] if doc else None)
    parser.add_argument("--es-url", default=LauncherSettings().elasticsearch_url)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--levels", type=lambda s: [int(x) for x in s.split(",")], default=levels)
    parser.add_argument("--port", type=int, default=port, help="0: any free port")
    parser.add_argument(
        "--es-timeout",
        type=float,
        help="the started service's Elasticsearch request timeout, s (default: its own)",
    )
    parser.add_argument("--warm-up", type=float, default=3, help="s per arm before measuring")
    parser.add_argument(
        "--service-url", help="measure the service already running there (default: start one)"
    )
    parser.add_argument(
        "--profile", type=Path, help="sample the service with py-spy: PATH.txt stacks, PATH.md"
    )
    return parser


def parse_harness_args(
    parser: argparse.ArgumentParser, argv: list[str] | None = None
) -> argparse.Namespace:
    args = parser.parse_args(argv)
    if not args.es_url:
        parser.error("--es-url or ELASTICSEARCH_URL is required")
    return args
