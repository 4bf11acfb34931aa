"""Bulk framing benchmark: this process's CPU per action, the old helper path vs the hand framing.

Usage:
    python -m bench.bulk_framing_bench [--actions N] [--chunk-size N] [--concurrency N]
        [--rounds N]

What it measures: the Python cost on the client side of sending already-serialised actions,
nothing of Elasticsearch. The actions are the indexer's own (plans, coverage, providers and
search documents of the bundled sample, built once by the load's pipeline, untimed), repeated to
``--actions``. They are sent, with the load's chunk size, concurrency and garbage-collector
settings, to ``devtools/bulk_relay.py`` running in a child process without a node: it answers
every bulk request with a canned success of one item per action (with index name and id when the
filter path asks for them, as the old path's did). Each round sends them once by each path,
alternating:

- old: ``async_streaming_bulk`` with the per-action expansion callback, as ``indexer/write/bulk.py``
  did before (its ``_send`` is copied here, so both run in the same process and session);
- new: ``indexer.write.bulk.bulk_index`` (one ``b"\\n".join`` per chunk, items read only on errors).

Printed per path: CPU time of this process per action (user + system, from ``getrusage``; the
system part is mostly the loopback socket), the median and every round, the user part alone, and
wall time per action (which includes the relay, so only indicative). Both
paths share the client (``core.es_client.make_client``), HTTP and the client's serializer.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import cycle, islice
from operator import itemgetter
from pathlib import Path
from typing import Any

import orjson
from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_streaming_bulk

from core.es_client import make_client
from core.index_contract import INDEX_KINDS
from indexer import versions
from indexer.load.pipeline import ActionStream
from indexer.load.report import LoadReport
from indexer.load.run import SourceFiles, read_side_tables
from indexer.write.bulk import Action, BulkResult, Failure, Origin, bulk_index, chunked
from indexer.write.collector import batch_gc
from indexer.write.rejects import Rejects

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample"

Sender = Callable[..., Awaitable[BulkResult]]

# ---- the old path: indexer/write/bulk.py before the hand framing, unchanged but for the names ----

_lines = itemgetter(0, 1)
_OLD_FILTER = "items.*._index,items.*._id,items.*.status,items.*.error"


def _old_failure(item: dict[str, Any], origins: dict[tuple[str, str], Origin]) -> Failure:
    outcome = next(iter(item.values()))
    index, doc_id = str(outcome.get("_index")), str(outcome.get("_id"))
    error = outcome.get("error", {})
    reason = error.get("reason", str(error)) if isinstance(error, dict) else str(error)
    status = int(outcome.get("status", 0))
    return Failure(index, doc_id, status, reason, origins.get((index, doc_id)))


async def _old_send(es: AsyncElasticsearch, chunk: list[Action], result: BulkResult) -> None:
    failed: list[dict[str, Any]] = []
    lines: list[Any] = chunk  # the helper's types know dict actions only; _lines frames ours
    async for _, item in async_streaming_bulk(
        es,
        lines,
        chunk_size=len(chunk),
        expand_action_callback=_lines,
        raise_on_error=False,
        yield_ok=False,
        max_retries=5,
        initial_backoff=0.5,
        max_backoff=10,
        filter_path=_OLD_FILTER,
    ):
        failed.append(item)
    if failed:
        origins = {}
        for header, _, origin in chunk:
            meta = next(iter(orjson.loads(header).values()))
            origins[meta["_index"], meta["_id"]] = origin
        result.failed.extend(_old_failure(item, origins) for item in failed)


async def old_bulk_index(
    es: AsyncElasticsearch, actions: Iterable[Action], *, chunk_size: int, concurrency: int
) -> BulkResult:
    result = BulkResult()
    in_flight: set[asyncio.Task[None]] = set()
    try:
        for chunk in chunked(actions, chunk_size):
            if len(in_flight) >= concurrency:
                done, in_flight = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    task.result()
            in_flight.add(asyncio.create_task(_old_send(es, chunk, result)))
            await asyncio.sleep(0)
        if in_flight:
            for outcome in await asyncio.gather(*in_flight, return_exceptions=True):
                if isinstance(outcome, BaseException):
                    raise outcome
    finally:
        await asyncio.gather(*in_flight, return_exceptions=True)
    return result


# ---- the harness ----


@dataclass
class Round:
    cpu_s: float  # user + system
    user_s: float
    wall_s: float


def _cpu() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime, usage.ru_utime


def sample_actions(count: int) -> list[Action]:
    """The load's actions for the bundled sample, repeated to ``count`` (built untimed)."""
    report = LoadReport(version=versions.new_version())
    sources = SourceFiles.discover(SAMPLE)
    indices = {kind: f"provider-directory-{kind}-20260101t000000000000" for kind in INDEX_KINDS}
    with tempfile.TemporaryDirectory() as scratch, Rejects(Path(scratch) / "r.csv") as rejects:
        tables = read_side_tables(sources, rejects, report)
        base = list(ActionStream(sources, tables, indices, report, rejects))
    return list(islice(cycle(base), count))


async def timed(send: Sender, es: AsyncElasticsearch, actions: list[Action], args: Any) -> Round:
    gc.collect()
    with batch_gc():
        (cpu, user), wall = _cpu(), time.perf_counter()
        result = await send(es, actions, chunk_size=args.chunk_size, concurrency=args.concurrency)
        (cpu_after, user_after), wall_after = _cpu(), time.perf_counter()
    done = Round(cpu_after - cpu, user_after - user, wall_after - wall)
    if result.failed:
        raise SystemExit(f"{len(result.failed)} actions failed against the canned relay")
    return done


@contextlib.contextmanager
def canned_relay() -> Iterator[str]:
    """``devtools.bulk_relay`` in a child process without a node; yields its URL."""
    command = [sys.executable, "-m", "devtools.bulk_relay"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        if not url.startswith("http://127.0.0.1:"):
            raise SystemExit(f"the relay did not start: {url!r}")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=300)  # a guard against a hang, not a measure of speed


def report(name: str, rounds: list[Round], count: int) -> None:
    per_action = [r.cpu_s / count * 1e6 for r in rounds]
    user = statistics.median(r.user_s for r in rounds) / count * 1e6
    wall = statistics.median(r.wall_s for r in rounds) / count * 1e6
    listed = ", ".join(f"{us:.2f}" for us in per_action)
    print(
        f"{name:4} CPU {statistics.median(per_action):5.2f} µs/action (rounds: {listed}), "
        f"of which user {user:.2f}; wall {wall:.2f}"
    )


async def run(args: argparse.Namespace) -> None:
    actions = sample_actions(args.actions)
    size = sum(len(header) + len(source) + 2 for header, source, _ in actions) / len(actions)
    print(
        f"{len(actions):,} actions of {size:,.0f} bytes on average; chunk {args.chunk_size}, "
        f"concurrency {args.concurrency}, {args.rounds} rounds"
    )
    senders: dict[str, Sender] = {"old": old_bulk_index, "new": bulk_index}
    rounds: dict[str, list[Round]] = {name: [] for name in senders}
    with canned_relay() as url:
        es = make_client(url)
        try:
            for send in senders.values():  # warm-up: connections, the product check, caches
                await timed(send, es, actions[: args.chunk_size * args.concurrency], args)
            for _ in range(args.rounds):
                for name, send in senders.items():
                    rounds[name].append(await timed(send, es, actions, args))
        finally:
            await es.close()
    for name, measured in rounds.items():
        report(name, measured, len(actions))


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--actions", type=int, default=200_000)
    parser.add_argument("--chunk-size", type=int, default=3000)  # LoadOptions' defaults
    parser.add_argument("--concurrency", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    asyncio.run(run(arguments(argv)))


if __name__ == "__main__":
    main()
