"""Weekly update under search load: ``provider-indexer update`` applied in place to the live
version while N clients search and look providers up through the service, from a warm-up before
the update to a few seconds after it.

Usage (an index loaded under --prefix; everything after ``--`` goes to ``update``):
    python -m bench.update_bench --prefix PREFIX [--clients 16] [--lookup-clients 4] \
        [--warm-up 20] [--no-clients] [--py-spy FILE] -- --nppes FILE [--source-dir DIR]

Clients (as reload_bench: the service as its own process, every client without pause):
``--clients`` minus ``--lookup-clients`` send the search harness's query mix in turn; the others
GET /v2/providers/{npi} and .../locations in turn, for NPIs sampled from the index (less those
the file deactivates: they rightly answer 404 once it is applied) and NPIs the file changes.
``--no-clients`` runs the update alone (the baseline). Printed: the update's wall time, its
report (outcomes, elapsed), its peak RSS and CPU, Elasticsearch's CPU and the machine's CPU and
disk over the update, requests and failures (any non-2xx or exception) by phase (before / during
/ after the update), p50 / p99 per phase and kind, and a timeline in buckets; a JSON summary and
the update's output go to ``--out``.* (bench/results/ by default). ``--py-spy FILE`` also
records the update with py-spy (raw format, idle frames included).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import resource
import signal
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

import aiohttp
import orjson

from bench.harness import percentile, running_service, stop_child
from bench.lookup_bench import sample_npis
from bench.search_bench import query_mix
from core.index_contract import IndexNames
from devtools.settings import LauncherSettings
from indexer.sources.nppes import Deactivated, NppesRecord, read_nppes
from indexer.sources.rejects import ignore_rejects
from service.web.auth import mint_token
from service.web.settings import Settings

MAX_REQUESTS_PER_CLIENT = 5_000_000  # the count bound of a client loop (time ends it first)
STOP_GRACE_S = 30.0  # a terminated update's time to release its lock and resume refresh
CHANGED_LOOKUPS = 500  # NPIs the file changes, among those looked up
HWM_POLL_S = 0.2  # the update's peak RSS is read this often (its last 0.2 s may be missed)
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@dataclass(slots=True)
class Request:
    at: float  # seconds since the clients started
    kind: str  # "search" | "lookup"
    ms: float
    status: str  # HTTP status, or the exception's class name


@dataclass
class UpdateRun:
    command: list[str]
    returncode: int | None = None
    wall_s: float = 0.0
    start_at: float = 0.0  # seconds since the clients started (0 without clients)
    cpu_s: float = 0.0  # user + system of the update process
    peak_rss_mb: float = 0.0  # of the update process (VmHWM, polled every HWM_POLL_S)
    es_cpu_s: float | None = None  # Elasticsearch's process CPU over the update
    machine_busy: float = 0.0  # share of all cores busy over the update
    machine_iowait: float = 0.0  # share of all cores idle with disk reads or writes pending
    disk_read_mb: float = 0.0  # read from the machine's disks over the update
    disk_written_mb: float = 0.0
    report: dict[str, Any] = field(default_factory=dict)


def _option(argv: Sequence[str], name: str) -> str | None:
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def update_command(args: argparse.Namespace, update_args: list[str]) -> list[str]:
    """``python -m indexer.cli --prefix P update ARGS``, with the report and rejects written
    under the bench's output name unless ARGS name them."""
    extra = list(update_args)
    if _option(extra, "--report-json") is None:
        extra += ["--report-json", f"{args.out}.report.json"]
    if _option(extra, "--reject-file") is None:
        extra += ["--reject-file", f"{args.out}.rejects.csv"]
    return [sys.executable, "-m", "indexer.cli", "--prefix", args.prefix, "update", *extra]


def file_npis(command: list[str]) -> tuple[list[str], set[str]]:
    """The NPIs of the update file's active rows (in file order) and those it deactivates."""
    path = _option(command, "--nppes")
    records: list[str] = []
    deactivated: set[str] = set()
    if path is None:
        return records, deactivated
    for row in read_nppes(Path(path), ignore_rejects):
        if isinstance(row, NppesRecord):
            records.append(row.npi)
        elif isinstance(row, Deactivated):
            deactivated.add(row.npi)
    return records, deactivated


async def lookup_npis(es_url: str, names: IndexNames, command: list[str], count: int) -> list[str]:
    """NPIs that answer 200 before, during and after the update: sampled from the index, less
    those the file deactivates, and up to CHANGED_LOOKUPS indexed NPIs the file changes."""
    records, deactivated = await asyncio.to_thread(file_npis, command)
    sampled = [npi for npi in await sample_npis(es_url, names, count, 3) if npi not in deactivated]
    changed: list[str] = []
    if records:
        body = {"ids": records[: CHANGED_LOOKUPS * 4]}
        url = f"{es_url}/{names.alias('providers')}/_mget?_source=false"
        async with aiohttp.ClientSession() as http, http.post(url, json=body) as response:
            docs = (await response.json())["docs"]
        changed = [doc["_id"] for doc in docs if doc.get("found")][:CHANGED_LOOKUPS]
    return changed + sampled


async def es_cpu_s(es_url: str) -> float | None:
    """Elasticsearch's process CPU time so far (all nodes), or None when it cannot be read."""
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http,
            http.get(f"{es_url}/_nodes/stats/process") as response,
        ):
            nodes = (await response.json())["nodes"].values()
        millis: int = sum(node["process"]["cpu"]["total_in_millis"] for node in nodes)
        return millis / 1000
    except (aiohttp.ClientError, TimeoutError, KeyError):
        return None


def _machine_counters() -> tuple[int, int, int, int, int]:
    """CPU jiffies of the whole machine (busy, iowait, total; /proc/stat) and sectors read and
    written on its disks (/sys/block, partitions and virtual devices left out)."""
    with open("/proc/stat") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    idle, iowait = values[3], values[4]
    read = written = 0
    for device in Path("/sys/block").iterdir():
        if device.name.startswith(("loop", "ram", "dm-", "zram")):
            continue
        fields = (device / "stat").read_text().split()
        read, written = read + int(fields[2]), written + int(fields[6])
    return sum(values) - idle - iowait, iowait, sum(values), read, written


def _children_cpu_s() -> float:
    """CPU seconds of this process's reaped children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _high_water_mb(pid: int) -> float:
    """The process's peak RSS so far (VmHWM), 0 when it is gone. Not ru_maxrss: Linux carries
    that across fork and exec, so a child would report this (larger) bench's own peak."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0.0


async def run_update(
    args: argparse.Namespace, command: list[str], log: IO[bytes], clients_started: float | None
) -> UpdateRun:
    """Run the update to its end (at most ``args.max_minutes``), measuring it."""
    run = UpdateRun(command)
    cpu_before = _children_cpu_s()
    es_before = await es_cpu_s(args.es_url)
    machine_before = _machine_counters()
    started = time.perf_counter()
    if clients_started is not None:
        run.start_at = started - clients_started
    process = await asyncio.create_subprocess_exec(
        *command, stdout=log, stderr=asyncio.subprocess.STDOUT
    )
    spy: asyncio.subprocess.Process | None = None
    try:
        if args.py_spy:
            spy = await asyncio.create_subprocess_exec(
                *(args.py_spy_bin, "record", "--pid", str(process.pid), "--idle", "--rate", "100"),
                *("--format", "raw", "--output", args.py_spy, "--nonblocking"),
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )
        for _ in range(int(args.max_minutes * 60 / HWM_POLL_S) + 1):
            run.peak_rss_mb = max(run.peak_rss_mb, _high_water_mb(process.pid))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), HWM_POLL_S)
                break
        run.wall_s = time.perf_counter() - started
    finally:
        await stop_child(process, STOP_GRACE_S)
        if spy is not None:  # it ends with its target; it writes its file when it does
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(spy.wait(), STOP_GRACE_S)
            await stop_child(spy, STOP_GRACE_S)
    run.returncode = process.returncode
    busy, iowait, total, read, written = (
        a - b for a, b in zip(_machine_counters(), machine_before, strict=True)
    )
    run.machine_busy, run.machine_iowait = busy / max(total, 1), iowait / max(total, 1)
    run.disk_read_mb, run.disk_written_mb = read * 512 / 1e6, written * 512 / 1e6
    es_after = await es_cpu_s(args.es_url)
    if es_before is not None and es_after is not None:
        run.es_cpu_s = es_after - es_before
    run.cpu_s = _children_cpu_s() - cpu_before
    run.report = _read_report(command)
    return run


def _read_report(command: list[str]) -> dict[str, Any]:
    """The update's JSON report (removed before the update starts), or {} when it wrote none."""
    path = Path(_option(command, "--report-json") or "")
    report: dict[str, Any] = orjson.loads(path.read_bytes()) if path.is_file() else {}
    return report


async def with_clients(
    args: argparse.Namespace, command: list[str], log: IO[bytes]
) -> tuple[UpdateRun, list[Request], float]:
    """Clients from the warm-up to ``args.after`` s after the update; the update; the requests
    and how long the clients ran."""
    names = IndexNames(args.prefix)
    mix = await query_mix(args.es_url, names, 240, seed=7)
    bodies = [orjson.dumps({k: v for k, v in b.items() if k != "_class"}) for b in mix]
    npis = await lookup_npis(args.es_url, names, command, args.npis) if args.lookup_clients else []
    auth = {"Authorization": f"Bearer {mint_token(Settings())}"}
    headers = {**auth, "Content-Type": "application/json"}
    requests: list[Request] = []
    searchers, lookups = args.clients - args.lookup_clients, args.lookup_clients
    if lookups and not npis:
        raise RuntimeError(f"no NPI to look up under {args.prefix}")
    timeout = aiohttp.ClientTimeout(total=args.request_timeout)
    async with (
        running_service(args) as url,
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64), timeout=timeout) as http,
    ):
        started = time.perf_counter()
        stop_at = [started + args.warm_up + args.max_minutes * 60 + args.after]

        async def call(kind: str, n: int) -> None:
            t0 = time.perf_counter()
            status = "?"
            try:
                if kind == "search":
                    answer = http.post(
                        f"{url}/v2/providers/search", data=bodies[n % len(bodies)], headers=headers
                    )
                else:
                    tail = "/locations" if (n // lookups) % 2 else ""  # in turn, per client
                    npi = npis[n % len(npis)]
                    answer = http.get(f"{url}/v2/providers/{npi}{tail}", headers=auth)
                async with answer as response:
                    await response.read()
                    status = str(response.status)
            except (aiohttp.ClientError, TimeoutError) as error:
                status = type(error).__name__
            requests.append(Request(t0 - started, kind, (time.perf_counter() - t0) * 1000, status))

        async def client(number: int) -> None:
            # The clients of a kind take its requests in turn.
            kind = "search" if number < searchers else "lookup"
            n, step = (number, searchers) if kind == "search" else (number - searchers, lookups)
            for _ in range(MAX_REQUESTS_PER_CLIENT):
                if time.perf_counter() >= stop_at[0]:
                    return
                await call(kind, n)
                n += step

        async def conduct() -> UpdateRun:
            try:
                await asyncio.sleep(args.warm_up)
                run = await run_update(args, command, log, started)
                await asyncio.sleep(args.after)
                return run
            finally:
                stop_at[0] = 0.0

        async with asyncio.TaskGroup() as group:
            conductor = group.create_task(conduct())
            for number in range(args.clients):
                group.create_task(client(number))
        return conductor.result(), requests, time.perf_counter() - started


def _failures(requests: Sequence[Request]) -> Counter[str]:
    return Counter(r.status for r in requests if not r.status.startswith("2"))


def _phase(run: UpdateRun, settle: float, request: Request) -> str | None:
    if request.at < settle:
        return None  # connections and caches warming up
    if request.at < run.start_at:
        return "before"
    return "during" if request.at < run.start_at + run.wall_s else "after"


def _row(label: str, kind: str, chosen: list[Request], seconds: float) -> str:
    lat = sorted(r.ms for r in chosen)
    failed = _failures(chosen)
    rate = len(lat) / seconds if seconds > 0 else float("nan")
    return (
        f"| {label} | {kind} | {len(lat)} | {sum(failed.values())} {dict(failed) or ''} |"
        f" {rate:.0f} | {percentile(lat, 0.5):.1f} | {percentile(lat, 0.99):.1f} |"
        f" {lat[-1] if lat else float('nan'):.0f} |"
    )


def print_update(run: UpdateRun) -> None:
    report = run.report
    print(f"command: {' '.join(run.command)}")
    print(
        f"update exit code {run.returncode}; wall {run.wall_s:.1f} s; report elapsed"
        f" {report.get('elapsed_s', float('nan'))} s; CPU {run.cpu_s:.1f} s"
        f" ({run.cpu_s / max(run.wall_s, 1e-9):.0%} of one core); peak RSS {run.peak_rss_mb:.0f} MB"
        f" (its report, ru_maxrss: {report.get('peak_rss_mb', float('nan')):.0f} MB)"
    )
    es = f"{run.es_cpu_s:.1f} s" if run.es_cpu_s is not None else "unknown"
    print(
        f"over the update: Elasticsearch CPU {es}; machine CPU busy {run.machine_busy:.0%},"
        f" iowait {run.machine_iowait:.0%}; disks read {run.disk_read_mb:,.0f} MB, wrote"
        f" {run.disk_written_mb:,.0f} MB"
    )
    if report:
        print(
            f"rows {report['rows']:,}: outcomes {report['outcomes']}, rejected"
            f" {report['rejected_by_reason']}, removed {report['removed']},"
            f" accounted {report['accounted']}, version {report['version']}"
        )


def print_requests(
    args: argparse.Namespace, run: UpdateRun, requests: list[Request], ran_s: float
) -> None:
    end = run.start_at + run.wall_s
    spans = {"before": run.start_at - args.settle, "during": run.wall_s, "after": ran_s - end}
    phased: dict[str, list[Request]] = {"before": [], "during": [], "after": []}
    for request in requests:
        phase = _phase(run, args.settle, request)
        if phase is not None:
            phased[phase].append(request)
    print(
        f"\n{args.clients} clients ({args.clients - args.lookup_clients} search,"
        f" {args.lookup_clients} lookup); update from {run.start_at:.1f} s to {end:.1f} s;"
        f" all failures: {dict(_failures(requests)) or 'none'}\n"
    )
    print("| phase | kind | requests | failed | req/s | p50 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|---|---|---|")
    for phase, chosen in phased.items():
        for kind in ("search", "lookup"):
            of_kind = [r for r in chosen if r.kind == kind]
            if of_kind:
                print(_row(phase, kind, of_kind, spans[phase]))
    print(f"\ntimeline ({args.bucket:g} s buckets; * = the update runs)\n")
    print("| from s | | searches | search p50 | search p99 | lookups | lookup p99 | failed |")
    print("|---|---|---|---|---|---|---|---|")
    buckets: dict[int, list[Request]] = {}
    for request in requests:
        buckets.setdefault(int(request.at // args.bucket), []).append(request)
    for index, chosen in sorted(buckets.items()):
        at = index * args.bucket
        mark = "*" if at + args.bucket > run.start_at and at < end else ""
        search = sorted(r.ms for r in chosen if r.kind == "search")
        lookup = sorted(r.ms for r in chosen if r.kind == "lookup")
        print(
            f"| {at:g} | {mark} | {len(search)} | {percentile(search, 0.5):.1f} |"
            f" {percentile(search, 0.99):.1f} | {len(lookup)} | {percentile(lookup, 0.99):.1f} |"
            f" {sum(_failures(chosen).values())} |"
        )


async def main_async(
    args: argparse.Namespace, command: list[str], log: IO[bytes]
) -> tuple[UpdateRun, list[Request], float]:
    # SIGTERM and SIGINT (also when a shell started us with SIGINT ignored) cancel the run, so
    # the clean-up stops the update, py-spy and the service.
    task = asyncio.current_task()
    assert task is not None
    for signum in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(signum, task.cancel)
    if args.no_clients:
        return await run_update(args, command, log, None), [], 0.0
    return await with_clients(args, command, log)


def main() -> None:
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--es-url", default=LauncherSettings().elasticsearch_url)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--lookup-clients", type=int, default=4, help="of --clients")
    parser.add_argument("--no-clients", action="store_true", help="the update alone")
    parser.add_argument("--npis", type=int, default=2000, help="NPIs sampled for lookups")
    parser.add_argument("--warm-up", type=float, default=20, help="s of clients before")
    parser.add_argument("--settle", type=float, default=5, help="first s of the warm-up ignored")
    parser.add_argument("--after", type=float, default=5, help="s of clients after the update")
    parser.add_argument("--bucket", type=float, default=5, help="s per row of the timeline")
    parser.add_argument("--request-timeout", type=float, default=30)
    parser.add_argument("--max-minutes", type=float, default=30, help="then the update is stopped")
    parser.add_argument("--port", type=int, default=8095)
    parser.add_argument("--out", default="bench/results/update", help="output path prefix")
    parser.add_argument("--py-spy", help="also profile the update with py-spy (raw) into this")
    parser.add_argument("--py-spy-bin", default="/tmp/spy/bin/py-spy")
    args = parser.parse_args(argv[:split])
    if not args.es_url or urlsplit(args.es_url).hostname not in LOOPBACK:
        parser.error("--es-url (or ELASTICSEARCH_URL) must be an Elasticsearch on this machine")
    if not 0 <= args.lookup_clients <= args.clients or args.settle > args.warm_up:
        parser.error("need 0 <= --lookup-clients <= --clients and --settle <= --warm-up")
    command = update_command(args, argv[split + 1 :])
    Path(_option(command, "--report-json") or "").unlink(missing_ok=True)
    with open(args.out + ".update.log", "wb") as log:
        try:
            run, requests, ran_s = asyncio.run(main_async(args, command, log))
        except (asyncio.CancelledError, KeyboardInterrupt):
            sys.exit("interrupted; the processes this bench started were stopped")
    print_update(run)
    if requests:
        print_requests(args, run, requests, ran_s)
    print("\nupdate output:\n" + Path(args.out + ".update.log").read_text()[-3000:])
    summary = {"update": asdict(run), "failures": dict(_failures(requests))}
    Path(args.out + ".json").write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
