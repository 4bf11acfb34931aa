"""Reload under search load: a full ``provider-indexer load`` while N clients search through the
service, from the load's start to its alias swap and a few seconds beyond.

Usage (an index already loaded under --prefix; everything after ``--`` goes to ``load``):
    python -m bench.reload_bench --prefix PREFIX [--clients 16] [--max-minutes 60] \
        -- --nppes FILE --nucc FILE [--dac FILE ...]

The clients run the search harness's query mix (built from the loaded index) in turn. Printed:
requests, failures by status, search latency percentiles over the whole reload and per minute,
the load's own report, and the version served before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from collections import Counter
from pathlib import Path
from typing import IO

import aiohttp
import orjson

from bench.harness import percentile, running_service
from bench.search_bench import query_mix
from core.es_client import make_client
from core.index_contract import IndexNames
from devtools.settings import LauncherSettings
from indexer import versions
from service.web.auth import mint_token
from service.web.settings import Settings

AFTER_SWAP_S = 5.0


async def _served(es_url: str, names: IndexNames) -> str | None:
    es = make_client(es_url)
    try:
        return await versions.current_version(es, names)
    finally:
        await es.close()


async def main_async(args: argparse.Namespace, load_args: list[str], log: IO[bytes]) -> None:
    names = IndexNames(args.prefix)
    mix = await query_mix(args.es_url, names, 240, seed=7)
    bodies = [orjson.dumps({k: v for k, v in b.items() if k != "_class"}) for b in mix]
    headers = {"Authorization": f"Bearer {mint_token(Settings())}"}
    headers["Content-Type"] = "application/json"
    before = await _served(args.es_url, names)
    latencies: list[tuple[float, float]] = []  # (seconds since start, ms)
    statuses: Counter[str] = Counter()
    command = [
        sys.executable,
        "-m",
        "indexer.cli",
        "--prefix",
        args.prefix,
        "load",
        *load_args,
    ]
    async with (
        running_service(args) as url,
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64)) as http,
    ):
        started = time.perf_counter()
        loader = await asyncio.create_subprocess_exec(
            *command, stdout=log, stderr=asyncio.subprocess.STDOUT
        )
        deadline = started + args.max_minutes * 60
        stop_at = [deadline]

        async def client(offset: int) -> None:
            i = offset
            while time.perf_counter() < stop_at[0]:
                t0 = time.perf_counter()
                try:
                    async with http.post(
                        f"{url}/v2/providers/search", data=bodies[i % len(bodies)], headers=headers
                    ) as response:
                        await response.read()
                        statuses[str(response.status)] += 1
                except aiohttp.ClientError as error:
                    statuses[type(error).__name__] += 1
                latencies.append((t0 - started, (time.perf_counter() - t0) * 1000))
                i += args.clients

        async def watch_loader() -> None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(loader.wait(), deadline - time.perf_counter())
            stop_at[0] = min(deadline, time.perf_counter() + AFTER_SWAP_S)

        await asyncio.gather(watch_loader(), *(client(n) for n in range(args.clients)))
        elapsed = time.perf_counter() - started
    if loader.returncode is None:
        loader.terminate()
        await loader.wait()
    after = await _served(args.es_url, names)
    _report(args, loader.returncode, elapsed, latencies, statuses, before, after)


def _report(
    args: argparse.Namespace,
    returncode: int | None,
    elapsed: float,
    latencies: list[tuple[float, float]],
    statuses: Counter[str],
    before: str | None,
    after: str | None,
) -> None:
    failed = sum(n for status, n in statuses.items() if status != "200")
    overall = sorted(ms for _, ms in latencies)
    print(f"load exit code {returncode}; {elapsed / 60:.1f} min; served {before} -> {after}")
    print(f"{args.clients} clients: {len(overall)} searches, {failed} failed {dict(statuses)}")
    print(
        f"search during the reload: p50 {percentile(overall, 0.5):.1f} ms, p95"
        f" {percentile(overall, 0.95):.1f} ms, p99 {percentile(overall, 0.99):.1f} ms,"
        f" {len(overall) / elapsed:.0f} req/s\n"
    )
    print("| minute | searches | p50 ms | p99 ms |\n|---|---|---|---|")
    minutes: dict[int, list[float]] = {}
    for at, ms in latencies:
        minutes.setdefault(int(at // 60), []).append(ms)
    for minute, values in sorted(minutes.items()):
        values.sort()
        print(
            f"| {minute} | {len(values)} | {percentile(values, 0.5):.1f} |"
            f" {percentile(values, 0.99):.1f} |"
        )
    print("\nload report:\n" + Path(args.load_log).read_text()[-3000:])


def main() -> None:
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--es-url", default=LauncherSettings().elasticsearch_url)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--max-minutes", type=float, default=60)
    parser.add_argument("--port", type=int, default=8097)
    parser.add_argument("--load-log", default="bench/results/reload_load.log")
    args = parser.parse_args(argv[:split])
    with open(args.load_log, "wb") as log:
        asyncio.run(main_async(args, argv[split + 1 :], log))


if __name__ == "__main__":
    main()
