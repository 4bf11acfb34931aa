"""Soak: the service at a share (80 %) of its measured capacity for N minutes, a mixed workload
in an open loop, a reindex half way, and one row per minute of latency, outcomes, RSS and file
descriptors, with verdicts on what issue 17 expects.

Usage (an Elasticsearch on this machine; the soak loads and removes its own prefix):
    python -m bench.soak [--es-url URL] [--minutes 10] [--prefix pdsoak] [--load 0.8] \
        [--capacity-clients 24] [--capacity-seconds 30] [--rate REQ_PER_S] [--reindex-at 0.5]

Steps, all on 127.0.0.1: ``provider-indexer load`` of data/sample under ``--prefix`` (refused
when that prefix already holds indices); the service as its own process (rate limiting off,
its log in ``--out``.service.log); the workload built from the loaded index: searches (names,
names with typos, lay terms, specialties near points, places alone, filters, misspelt
specialties), GET /v2/providers/{npi} and .../locations, POST /v2/providers/coverage (full and
compact views), and a few bad requests (malformed JSON, unknown field, invalid NPI, absent NPI:
a 4xx is their right answer and is counted apart); capacity: the mix in a closed loop of
``--capacity-clients`` for ``--capacity-seconds`` (after a warm-up); then the open loop at
``--load`` x that rate (or ``--rate``): request i starts at i / rate whatever the answers do,
at most ``--max-in-flight`` at once; one that finds them all busy is not sent and one that
starts over ``--late-ms`` behind its time is sent, both counted as late. At ``--reindex-at`` of
the soak, ``provider-indexer load`` of the sample again (the aliases swap under live traffic).
At each minute's end, the service's VmRSS and open descriptors. Printed: the table, a table
per request kind, the reindex and the verdicts (exit status 1 when one fails); JSON in
``--out``.json (per-request figures included). The service, the indexer and the prefix's
indices are removed at the end, also on failure, SIGTERM or Ctrl-C.

The run's records are bench/soak_run.py, the workload bench/soak_workload.py, the loops
bench/soak_loops.py and the report bench/soak_report.py.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import time
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit

import aiohttp
from elasticsearch import ApiError, TransportError

from bench.harness import service_process
from bench.soak_loops import (
    delete_indices,
    load_command,
    measure_capacity,
    open_loop,
    prefix_indices,
    reindex_at,
    run_indexer,
    sample_minutes,
)
from bench.soak_report import report
from bench.soak_run import LOOPBACK, MINUTE_S, SETTLE_S, Call, Capacity, Reindex, Run
from bench.soak_workload import build_calls, sender
from core.es_client import node_urls
from core.index_contract import IndexNames
from devtools.settings import REPO_ROOT, LauncherSettings
from service.web.auth import mint_token
from service.web.settings import Settings


async def soak(
    args: argparse.Namespace, logs: Mapping[str, IO[bytes]]
) -> tuple[Capacity | None, Run, Reindex | None]:
    names = IndexNames(args.prefix)
    node = node_urls(args.es_url)[0]  # the workload's own queries go to one node
    if existing := await prefix_indices(args.es_url, names):
        raise SystemExit(f"--prefix {args.prefix} already holds {existing}; choose another")
    try:
        code = await run_indexer(load_command(args, "initial"), logs["load"], args.load_timeout)
        if code != 0:
            raise SystemExit(f"the initial load exited {code}; see {args.out}.load.log")
        calls = await build_calls(node, names, args.seed)
        return await _with_service(args, calls, logs)
    finally:
        try:
            await delete_indices(args.es_url, await prefix_indices(args.es_url, names))
        except (ApiError, TransportError) as error:  # said, not raised over the run's own error
            print(f"could not delete the indices of {args.prefix}: {error}", file=sys.stderr)


async def _with_service(
    args: argparse.Namespace, calls: list[Call], logs: Mapping[str, IO[bytes]]
) -> tuple[Capacity | None, Run, Reindex | None]:
    seconds = args.minutes * MINUTE_S
    token = mint_token(Settings(), ttl_s=int(seconds + args.capacity_seconds + 3600))
    timeout = aiohttp.ClientTimeout(total=args.request_timeout)
    connector = aiohttp.TCPConnector(limit=args.max_in_flight)
    async with (
        service_process(args.es_url, args.prefix, args.port, logs["service"]) as (url, process),
        aiohttp.ClientSession(connector=connector, timeout=timeout) as http,
    ):
        send = sender(http, url, token)
        capacity = None
        if args.rate is None:
            capacity = await measure_capacity(
                send, calls, args.capacity_clients, args.capacity_seconds
            )
            print(f"capacity: {capacity.rate:.1f} req/s ({asdict(capacity)})", flush=True)
            await asyncio.sleep(SETTLE_S)
        rate = args.rate if capacity is None else capacity.rate * args.load
        run = Run(rate, seconds)
        reindex = None
        if args.reindex_at is not None:
            reindex = Reindex(args.reindex_at * seconds, load_command(args, "reindex"))
        started = time.perf_counter() + 0.1
        async with asyncio.TaskGroup() as group:
            group.create_task(sample_minutes(process.pid, run, started))
            if reindex is not None:
                group.create_task(reindex_at(reindex, started, logs["reindex"], args.load_timeout))
            group.create_task(
                open_loop(send, calls, run, started, args.max_in_flight, args.late_ms / 1000)
            )
        return capacity, run, reindex


async def main_async(
    args: argparse.Namespace, logs: Mapping[str, IO[bytes]]
) -> tuple[Capacity | None, Run, Reindex | None]:
    # SIGTERM and SIGINT cancel the run, so the clean-up stops the indexer and the service
    # and deletes the prefix's indices.
    task = asyncio.current_task()
    assert task is not None
    for signum in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(signum, task.cancel)
    return await soak(args, logs)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--es-url", default=LauncherSettings().elasticsearch_url)
    parser.add_argument(
        "--prefix", default="pdsoak", help="loaded at the start, removed at the end"
    )
    parser.add_argument("--source-dir", type=Path, default=REPO_ROOT / "data" / "sample")
    parser.add_argument("--minutes", type=int, default=10)
    parser.add_argument("--load", type=float, default=0.8, help="share of the measured capacity")
    parser.add_argument("--rate", type=float, help="req/s of the open loop (no capacity run)")
    parser.add_argument("--capacity-clients", type=int, default=24)
    parser.add_argument("--capacity-seconds", type=float, default=30)
    parser.add_argument("--max-in-flight", type=int, default=64)
    parser.add_argument("--late-ms", type=float, default=100, help="a start this late is late")
    parser.add_argument("--reindex-at", type=float, default=0.5, help="share of the soak")
    parser.add_argument("--no-reindex", dest="reindex_at", action="store_const", const=None)
    parser.add_argument("--reindex-margin", type=float, default=30, help="s either side")
    parser.add_argument("--load-timeout", type=float, default=600, help="s for each load")
    parser.add_argument("--request-timeout", type=float, default=10)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--port", type=int, default=8094)
    parser.add_argument("--out", default="bench/results/soak", help="output path prefix")
    args = parser.parse_args()
    try:
        hosts = {urlsplit(url).hostname for url in node_urls(args.es_url or "")}
    except ValueError as error:
        parser.error(f"--es-url (or ELASTICSEARCH_URL): {error}")
    if not hosts <= LOOPBACK:
        parser.error("--es-url (or ELASTICSEARCH_URL) must be an Elasticsearch on this machine")
    if args.minutes < 1 or not 0 < args.load <= 1 or args.max_in_flight < 1:
        parser.error("need --minutes >= 1, 0 < --load <= 1 and --max-in-flight >= 1")
    if args.reindex_at is not None and not 0 <= args.reindex_at < 1:
        parser.error("need 0 <= --reindex-at < 1")
    return args


def main() -> None:
    args = parse_args()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        logs = {
            name: stack.enter_context(open(f"{args.out}.{name}.log", "wb"))
            for name in ("load", "service", "reindex")
        }
        try:
            capacity, run, reindex = asyncio.run(main_async(args, logs))
        except (asyncio.CancelledError, KeyboardInterrupt):
            sys.exit("interrupted; the processes and indices this soak started were removed")
    sys.exit(0 if report(args, capacity, run, reindex) else 1)


if __name__ == "__main__":
    main()
