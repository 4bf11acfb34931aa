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

About 750 lines: the workload, the two loops, the samplers, the verdicts and the report of one
run; they share the run's dataclasses and nothing else (what other benches share is in
bench/harness.py), so the module stays whole.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import IO, Any, Literal
from urllib.parse import urlsplit

import aiohttp
import orjson
from elasticsearch import ApiError, TransportError

from bench.coverage_bench import coverage_request
from bench.harness import percentile, run_level, service_process, stop_child
from bench.lookup_bench import sample_npis
from bench.search_bench import QUERY_CLASSES, query_mix
from core.es_client import make_client, node_urls
from core.index_contract import INDEX_KINDS, IndexNames
from core.npi import with_check_digit
from devtools.settings import REPO_ROOT, LauncherSettings
from service.search.models import SearchRequest
from service.web.auth import mint_token
from service.web.settings import Settings

Outcome = Literal["2xx", "expected_4xx", "unexpected_4xx", "5xx", "conn_error", "other"]
OUTCOMES: tuple[Outcome, ...] = (
    "2xx", "expected_4xx", "unexpected_4xx", "5xx", "conn_error", "other"
)  # fmt: skip
FAILURES: tuple[Outcome, ...] = ("unexpected_4xx", "5xx", "conn_error", "other")
MINUTE_S = 60.0
WARM_UP_S = 5.0  # closed loop before the capacity is measured (connections, caches)
SETTLE_S = 5.0  # idle between the capacity run and the open loop
STOP_GRACE_S = 30.0  # a terminated load's time to delete its new indices and release its lock
RSS_TOLERANCE = 0.10  # of the value after the first minute
P99_TOLERANCE = 0.20  # of the second minute's
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
# Shares of the open loop's requests by kind ("a few bad requests").
WEIGHTS: Mapping[str, float] = {
    "search": 0.56, "lookup": 0.16, "locations": 0.12, "coverage": 0.12, "bad": 0.04
}  # fmt: skip
FILTERS: Sequence[Mapping[str, Any]] = (
    {"gender": "F"},
    {"language": "Spanish"},
    {"pcpEligible": True},
    {"entityType": "organization"},
    {"specialty": "Internal Medicine"},
    {"taxonomyCode": "207Q00000X"},  # Family Medicine
)
COVERAGE = "/v2/providers/coverage"
MISSPELT = ("cardiolgist", "dermatoligist", "pediatrision", "orthopedic surgen", "famly doctor")


@dataclass(frozen=True, slots=True)
class Call:
    """One prepared request of the mix."""

    kind: str  # search | lookup | locations | coverage | bad
    label: str  # the query class, or which bad request
    method: str
    path: str
    body: bytes | None = None
    expect: int = 200  # the status a correct service answers


@dataclass(frozen=True, slots=True)
class Result:
    at: float  # its scheduled start, s since the open loop started
    kind: str
    ms: float  # from its actual start to the end of the answer
    status: str  # HTTP status, or the exception's class name
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class Late:
    at: float  # its scheduled start
    lag_ms: float
    sent: bool  # False: every in-flight slot was busy, so it was not sent


@dataclass(frozen=True, slots=True)
class ProcessSample:
    minute: int  # at the end of this minute (0: as the open loop starts)
    rss_mb: float | None  # None: the process is gone
    fds: int | None


@dataclass(frozen=True)
class Capacity:
    clients: int
    seconds: float
    requests: int
    failed: int  # answers that are neither a 2xx nor the expected 4xx
    rate: float
    p50_ms: float
    p99_ms: float


@dataclass
class Reindex:
    planned_s: float  # when, s since the open loop started
    command: list[str]
    started_s: float | None = None
    seconds: float | None = None
    returncode: int | None = None


@dataclass(frozen=True)
class MinuteRow:
    minute: int  # 1-based
    requests: int
    late: int
    outcomes: dict[str, int]
    p50_ms: float  # of the requests that are not bad on purpose and were answered
    p99_ms: float
    rss_mb: float | None  # at the minute's end
    fds: int | None
    reindex: bool  # the reindex ran during part of this minute


@dataclass(frozen=True)
class Verdict:
    name: str
    passed: bool | None  # None: not measurable in this run
    detail: str


@dataclass
class Run:
    rate: float
    seconds: float
    results: list[Result] = field(default_factory=list)
    late: list[Late] = field(default_factory=list)
    samples: list[ProcessSample] = field(default_factory=list)


# ---- pure: outcomes, the workload's order, per-minute rows, verdicts ----


def classify(status: int | None, expect: int) -> Outcome:
    """``status`` (None: no answer) of a request whose right answer is ``expect``."""
    if status is None:
        return "conn_error"
    if status >= 500:
        return "5xx"
    if status >= 400:
        return "expected_4xx" if status == expect else "unexpected_4xx"
    return "2xx" if 200 <= status < 300 and expect < 300 else "other"


def interleave(
    pools: Mapping[str, Sequence[Call]], weights: Mapping[str, float], count: int, seed: int
) -> list[Call]:
    """``count`` calls, each kind drawn with its weight, each pool taken in turn."""
    kinds = [kind for kind in weights if pools.get(kind)]
    rng = random.Random(seed)
    taken: Counter[str] = Counter()
    calls: list[Call] = []
    for kind in rng.choices(kinds, [weights[k] for k in kinds], k=count):
        calls.append(pools[kind][taken[kind] % len(pools[kind])])
        taken[kind] += 1
    return calls


def _ratio(value: float, reference: float) -> float:
    return value / reference - 1 if reference else float("inf")


def minute_rows(run: Run, reindex: Reindex | None) -> list[MinuteRow]:
    minutes = max(1, round(run.seconds / MINUTE_S))
    by_minute: list[list[Result]] = [[] for _ in range(minutes)]
    for result in run.results:
        by_minute[min(minutes - 1, int(result.at // MINUTE_S))].append(result)
    late = Counter(min(minutes - 1, int(item.at // MINUTE_S)) for item in run.late)
    samples = {sample.minute: sample for sample in run.samples}
    rows = []
    for m, chosen in enumerate(by_minute):
        latencies = sorted(r.ms for r in chosen if r.kind != "bad" and r.outcome != "conn_error")
        counts = Counter(r.outcome for r in chosen)
        sample = samples.get(m + 1)
        rows.append(
            MinuteRow(
                minute=m + 1,
                requests=len(chosen),
                late=late[m],
                outcomes={outcome: counts[outcome] for outcome in OUTCOMES},
                p50_ms=percentile(latencies, 0.50),
                p99_ms=percentile(latencies, 0.99),
                rss_mb=sample.rss_mb if sample else None,
                fds=sample.fds if sample else None,
                reindex=_overlaps(reindex, m * MINUTE_S, (m + 1) * MINUTE_S),
            )
        )
    return rows


def _overlaps(reindex: Reindex | None, start: float, end: float) -> bool:
    if reindex is None or reindex.started_s is None:
        return False
    finished = reindex.started_s + (reindex.seconds or 0.0)
    return reindex.started_s < end and finished >= start


def errors_around(results: Sequence[Result], reindex: Reindex, margin_s: float) -> Counter[str]:
    """Failed requests scheduled from ``margin_s`` before the reindex to ``margin_s`` after."""
    if reindex.started_s is None:
        return Counter()
    start = reindex.started_s - margin_s
    end = reindex.started_s + (reindex.seconds or 0.0) + margin_s
    return Counter(r.status for r in results if start <= r.at <= end and r.outcome in FAILURES)


def verdicts(
    rows: Sequence[MinuteRow], results: Sequence[Result], reindex: Reindex | None, margin_s: float
) -> list[Verdict]:
    bad = {name: sum(row.outcomes[name] for row in rows) for name in ("5xx", "conn_error")}
    found = [
        Verdict(
            "zero 5xx and zero connection errors",
            not any(bad.values()),
            f"{bad['5xx']} 5xx, {bad['conn_error']} connection errors",
        ),
        _rss_verdict(rows),
        _p99_verdict(rows),
    ]
    if reindex is not None:
        around = errors_around(results, reindex, margin_s)
        found.append(
            Verdict(
                f"reindex exited 0, zero failed requests from {margin_s:g} s before to after",
                reindex.returncode == 0 and not around,
                f"exit code {reindex.returncode}, failed {sum(around.values())}"
                f" {dict(around) or ''}".rstrip(),
            )
        )
    return found


def _rss_verdict(rows: Sequence[MinuteRow]) -> Verdict:
    name = f"RSS of the last minute within {RSS_TOLERANCE:.0%} of the first minute's"
    first, last = rows[0].rss_mb, rows[-1].rss_mb
    if len(rows) < 2 or first is None or last is None:
        return Verdict(name, None, "needs two minutes with the service alive")
    change = _ratio(last, first)
    detail = f"{first:.1f} -> {last:.1f} MB ({change:+.1%})"
    return Verdict(name, abs(change) <= RSS_TOLERANCE, detail)


def _p99_verdict(rows: Sequence[MinuteRow]) -> Verdict:
    name = f"p99 of the last minute within {P99_TOLERANCE:.0%} of the second minute's"
    if len(rows) < 3:
        return Verdict(name, None, "needs three minutes (the second is the last)")
    second, last = rows[1].p99_ms, rows[-1].p99_ms
    change = _ratio(last, second)
    detail = f"{second:.1f} -> {last:.1f} ms ({change:+.1%})"
    return Verdict(name, abs(change) <= P99_TOLERANCE, detail)


def _cell(value: float | int | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _other(count: int) -> str:
    return f" (+{count} other)" if count else ""


def markdown_table(rows: Sequence[MinuteRow]) -> str:
    lines = [
        "| minute | requests | req/s | late | 2xx | expected 4xx | unexpected 4xx | 5xx |"
        " conn errors | p50 ms | p99 ms | RSS MB | open fds |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        o = row.outcomes
        lines.append(
            f"| {row.minute}{' *' if row.reindex else ''} | {row.requests:,} |"
            f" {row.requests / MINUTE_S:.0f} | {row.late} | {o['2xx']:,} | {o['expected_4xx']} |"
            f" {o['unexpected_4xx']}{_other(o['other'])} |"
            f" {o['5xx']} | {o['conn_error']} | {_cell(row.p50_ms)} |"
            f" {_cell(row.p99_ms)} | {_cell(row.rss_mb)} | {_cell(row.fds, 0)} |"
        )
    return "\n".join(lines)


def kind_table(results: Sequence[Result]) -> str:
    lines = ["| kind | requests | p50 ms | p99 ms | outcomes |", "|---|---:|---:|---:|---|"]
    kinds = sorted({r.kind for r in results})
    for kind in kinds:
        chosen = [r for r in results if r.kind == kind]
        latencies = sorted(r.ms for r in chosen if r.outcome != "conn_error")
        counts = dict(Counter(r.outcome for r in chosen))
        lines.append(
            f"| {kind} | {len(chosen):,} | {percentile(latencies, 0.5):.1f} |"
            f" {percentile(latencies, 0.99):.1f} | {counts} |"
        )
    return "\n".join(lines)


# ---- the workload, built from the loaded index ----


def _search(label: str, body: Mapping[str, Any]) -> Call:
    SearchRequest.model_validate(body)  # a body of ours that the service refuses is a bug here
    return Call("search", label, "POST", "/v2/providers/search", orjson.dumps(body))


def search_calls(mix: Sequence[dict[str, Any]], bids: Sequence[str]) -> list[Call]:
    """The search harness's mix, and for each body with a place one with a filter (bid ids
    included) and one with a misspelt specialty there."""
    calls: list[Call] = []
    filters = [*FILTERS, *({"bidId": bid, "contractYear": 2026} for bid in bids[:3])]
    for i, entry in enumerate(mix):
        body = {k: v for k, v in entry.items() if k != "_class"}
        calls.append(_search(QUERY_CLASSES[entry["_class"]], body))
        if "location" in body:
            calls.append(_search("filter", {**body, **filters[i % len(filters)]}))
            place = {"location": body["location"], "radius": body.get("radius", 25)}
            calls.append(_search("misspelt specialty", {"query": MISSPELT[i % 5], **place}))
    return calls


def lookup_calls(npis: Sequence[str]) -> dict[str, list[Call]]:
    return {
        "lookup": [Call("lookup", "provider", "GET", f"/v2/providers/{n}") for n in npis],
        "locations": [
            Call("locations", "locations", "GET", f"/v2/providers/{n}/locations") for n in npis
        ],
    }


def coverage_calls(request: Mapping[str, Any], count: int, seed: int) -> list[Call]:
    """``count`` requests of 1-5 of the plans and 5-50 of the providers, half compact."""
    rng = random.Random(seed)
    bids, npis = list(request["bidIds"]), list(request["npis"])
    calls = []
    for i in range(count):
        body = {
            "contractYear": request["contractYear"],
            "bidIds": rng.sample(bids, min(len(bids), rng.randint(1, 5))),
            "npis": rng.sample(npis, min(len(npis), rng.randint(5, 50))),
            "view": "compact" if i % 2 else "full",
        }
        calls.append(Call("coverage", body["view"], "POST", COVERAGE, orjson.dumps(body)))
    return calls


def bad_calls(npi: str, coverage: Mapping[str, Any]) -> list[Call]:
    search = "/v2/providers/search"
    unknown_field = {**coverage, "npis": coverage["npis"][:2], "colour": "blue"}
    absent = with_check_digit("299999999")
    return [
        Call("bad", "malformed JSON", "POST", search, b'{"query": "smith",', 400),
        Call("bad", "unknown field", "POST", search, b'{"query": "smith", "colour": "blue"}', 400),
        Call("bad", "invalid NPI", "GET", "/v2/providers/123456789", None, 400),
        Call("bad", "invalid NPI", "GET", f"/v2/providers/{npi[:-1]}x/locations", None, 400),
        Call("bad", "absent NPI", "GET", f"/v2/providers/{absent}", None, 404),
        Call("bad", "unknown field", "POST", COVERAGE, orjson.dumps(unknown_field), 400),
    ]


async def build_calls(es_url: str, names: IndexNames, seed: int) -> list[Call]:
    """The open loop's sequence (10,000 calls, repeated as needed) from the loaded index."""
    coverage = await coverage_request(es_url, names, 20, 200)
    npis = await sample_npis(es_url, names, 500, seed)
    pools = {
        "search": search_calls(await query_mix(es_url, names, 240, seed), coverage["bidIds"]),
        **lookup_calls(npis),
        "coverage": coverage_calls(coverage, 60, seed),
        "bad": bad_calls(npis[0], coverage),
    }
    return interleave(pools, WEIGHTS, 10_000, seed)


# ---- requests, the two loops, the samplers ----

Send = Callable[[Call], Awaitable[tuple[str, Outcome]]]


def sender(http: aiohttp.ClientSession, url: str, token: str) -> Send:
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    async def send(call: Call) -> tuple[str, Outcome]:
        try:
            async with http.request(
                call.method, url + call.path, data=call.body, headers=headers
            ) as response:
                await response.read()
                return str(response.status), classify(response.status, call.expect)
        except (aiohttp.ClientError, TimeoutError) as error:
            return type(error).__name__, classify(None, call.expect)

    return send


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
        *(sys.executable, "-m", "indexer.cli", "--es-url", args.es_url, "--prefix", args.prefix),
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


def report(
    args: argparse.Namespace, capacity: Capacity | None, run: Run, reindex: Reindex | None
) -> bool:
    """Print the tables and verdicts, write the JSON; True when no verdict failed."""
    rows = minute_rows(run, reindex)
    found = verdicts(rows, run.results, reindex, args.reindex_margin)
    sent_late = sum(item.sent for item in run.late)
    print(
        f"\nopen loop: {run.rate:.1f} req/s scheduled for {run.seconds / MINUTE_S:g} min"
        + (f" ({args.load:.0%} of {capacity.rate:.1f} measured with {capacity.clients} clients)"
           if capacity else " (--rate)")
        + f"; {len(run.results):,} sent; late: {sent_late} sent late, "
        f"{len(run.late) - sent_late} not sent\n"
    )  # fmt: skip
    print(markdown_table(rows))
    if reindex is not None and reindex.started_s is not None:
        print(
            f"\n* reindex (provider-indexer load of the sample): from {reindex.started_s:.1f} s,"
            f" {reindex.seconds or 0:.1f} s, exit code {reindex.returncode}"
        )
    print("\n" + kind_table(run.results) + "\n")
    for verdict in found:
        mark = {True: "PASS", False: "FAIL", None: "n/a"}[verdict.passed]
        print(f"{mark}: {verdict.name}: {verdict.detail}")
    _write_json(args, capacity, run, reindex, rows, found)
    return all(verdict.passed is not False for verdict in found)


def _write_json(
    args: argparse.Namespace,
    capacity: Capacity | None,
    run: Run,
    reindex: Reindex | None,
    rows: list[MinuteRow],
    found: list[Verdict],
) -> None:
    columns = {f.name: [getattr(r, f.name) for r in run.results] for f in fields(Result)}
    summary = {
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "capacity": asdict(capacity) if capacity else None,
        "rate": run.rate,
        "seconds": run.seconds,
        "minutes": [asdict(row) for row in rows],
        "samples": [asdict(sample) for sample in run.samples],
        "late": [asdict(item) for item in run.late],
        "reindex": asdict(reindex) if reindex else None,
        "verdicts": [asdict(verdict) for verdict in found],
        "requests": columns,
    }
    Path(f"{args.out}.json").write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2))
    print(f"\nJSON: {args.out}.json; logs: {args.out}.{{load,service,reindex}}.log")


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
