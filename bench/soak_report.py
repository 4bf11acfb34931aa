"""The soak's report (bench/soak.py): one row per minute, the verdicts, the Markdown tables and the
JSON record.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, fields
from pathlib import Path

import orjson

from bench.harness import percentile
from bench.soak_run import (
    FAILURES,
    MINUTE_S,
    OUTCOMES,
    P99_TOLERANCE,
    RSS_TOLERANCE,
    Capacity,
    MinuteRow,
    Reindex,
    Result,
    Run,
    Verdict,
)


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
