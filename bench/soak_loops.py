"""The soak's loops (bench/soak.py): capacity in a closed loop, the open loop at a share of it, the
per-minute process samples, and the indexer runs (the load, the reindex half way) with their
indices' clean-up.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Sequence
from typing import IO

from bench.harness import percentile, run_level, stop_child
from bench.soak_run import (
    MINUTE_S,
    STOP_GRACE_S,
    WARM_UP_S,
    Call,
    Capacity,
    Late,
    ProcessSample,
    Reindex,
    Result,
    Run,
)
from bench.soak_workload import Send
from core.es_client import make_client
from core.index_contract import INDEX_KINDS, IndexNames


async def measure_capacity(
    send: Send, calls: Sequence[Call], clients: int, seconds: float
) -> Capacity:
    """The mix in a closed loop of ``clients`` (each sends when its last answer is in)."""

    async def call(i: int) -> bool:
        _, outcome = await send(calls[i])
        return outcome in ("2xx", "expected_4xx")

    await run_level(clients, WARM_UP_S, call, len(calls))
    stats = await run_level(clients, seconds, call, len(calls))
    latencies = sorted(stats.latencies_ms)
    return Capacity(
        clients,
        stats.seconds,
        len(latencies),
        stats.errors,
        len(latencies) / stats.seconds,
        percentile(latencies, 0.5),
        percentile(latencies, 0.99),
    )


async def open_loop(
    send: Send, calls: Sequence[Call], run: Run, started: float, max_in_flight: int, late_s: float
) -> None:
    """Request i at ``started + i / run.rate`` for ``run.seconds``, at most ``max_in_flight``
    at once; a request that cannot start on time is recorded in ``run.late``."""
    in_flight = 0

    async def one(call: Call, at: float) -> None:
        nonlocal in_flight
        t0 = time.perf_counter()
        try:
            status, outcome = await send(call)
        finally:
            in_flight -= 1
        ms = (time.perf_counter() - t0) * 1000
        run.results.append(Result(at, call.kind, ms, status, outcome))

    async with asyncio.TaskGroup() as group:
        for i in range(int(run.rate * run.seconds)):
            at = i / run.rate
            await asyncio.sleep(max(0.0, started + at - time.perf_counter()))  # 0: still yields
            lag = time.perf_counter() - started - at
            if in_flight >= max_in_flight:
                run.late.append(Late(at, lag * 1000, sent=False))
                continue
            if lag > late_s:
                run.late.append(Late(at, lag * 1000, sent=True))
            in_flight += 1
            group.create_task(one(calls[i % len(calls)], at))


def process_sample(pid: int, minute: int) -> ProcessSample:
    """VmRSS and the count of open descriptors of ``pid`` (None when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            kb = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
        return ProcessSample(minute, kb / 1024, len(os.listdir(f"/proc/{pid}/fd")))
    except (OSError, StopIteration):
        return ProcessSample(minute, None, None)


async def sample_minutes(pid: int, run: Run, started: float) -> None:
    run.samples.append(process_sample(pid, 0))
    for minute in range(1, round(run.seconds / MINUTE_S) + 1):
        await asyncio.sleep(max(0.0, started + minute * MINUTE_S - time.perf_counter()))
        run.samples.append(process_sample(pid, minute))


async def run_indexer(command: list[str], log: IO[bytes], timeout_s: float) -> int:
    """The indexer subprocess to its end (terminated after ``timeout_s``); its exit code."""
    process = await asyncio.create_subprocess_exec(
        *command, stdout=log, stderr=asyncio.subprocess.STDOUT
    )
    try:
        await asyncio.wait_for(process.wait(), timeout_s)
    except TimeoutError:
        pass
    finally:
        await stop_child(process, STOP_GRACE_S)
    assert process.returncode is not None
    return process.returncode


async def reindex_at(reindex: Reindex, started: float, log: IO[bytes], timeout_s: float) -> None:
    await asyncio.sleep(max(0.0, started + reindex.planned_s - time.perf_counter()))
    t0 = time.perf_counter()
    reindex.started_s = t0 - started
    try:
        reindex.returncode = await run_indexer(reindex.command, log, timeout_s)
    finally:
        reindex.seconds = time.perf_counter() - t0


# ---- the run ----


def load_command(args: argparse.Namespace, tag: str) -> list[str]:
    return [
        *(
            sys.executable,
            "-m",
            "indexer.cli",
            "--es-url",
            args.es_url,
            "--prefix",
            args.prefix,
        ),
        *("load", "--source-dir", str(args.source_dir)),
        *("--report-json", f"{args.out}.{tag}.report.json"),
        *("--reject-file", f"{args.out}.{tag}.rejects.csv"),
    ]


def _patterns(names: IndexNames) -> str:
    return ",".join([*(names.pattern(kind) for kind in INDEX_KINDS), names.lock()])


async def prefix_indices(es_url: str, names: IndexNames) -> list[str]:
    es = make_client(es_url)
    try:
        found = await es.indices.get(
            index=_patterns(names), expand_wildcards="all", ignore_unavailable=True
        )
        return sorted(found.body)
    finally:
        await es.close()


async def delete_indices(es_url: str, indices: list[str]) -> None:
    if not indices:
        return
    es = make_client(es_url)
    try:
        await es.indices.delete(index=",".join(indices), ignore_unavailable=True)
    finally:
        await es.close()
