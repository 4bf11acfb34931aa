"""Indexer benchmark: ``provider-indexer load`` vs. a raw ``async_bulk`` of the same documents.

Usage:
    python -m bench.indexer_bench --nppes FILE [--source-dir DIR] [--coverage FILE]
        [--repeat N] [--chunk-size N] [--concurrency N] [--es-url URL]

Per repetition, against the same Elasticsearch node and with the same index settings:

1. indexer: ``provider-indexer load`` as its own process, as an operator runs it, timed from
   process start to exit (reading every source, building, bulk, verification, alias swap);
2. raw: the same documents, pre-built by the same pipeline into an NDJSON file beforehand
   (untimed), sent by ``helpers.async_bulk`` with the same chunk size and concurrency, then the
   same refresh; timed from the first request to the end of the refresh.

Side sources (NUCC, DAC, hospitals, plans) come from ``--source-dir`` (default: the bundled
sample). Elasticsearch's CPU time in each phase comes from its node stats. Results are printed
as a Markdown table and kept as JSON in ``bench/results/``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from operator import itemgetter
from pathlib import Path
from typing import Any

import orjson
from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_bulk

from core.es_client import make_client
from core.index_contract import INDEX_KINDS, IndexNames
from devtools import es_launcher
from devtools.settings import LauncherSettings
from indexer import versions
from indexer.load.pipeline import ActionStream
from indexer.load.report import LoadReport
from indexer.load.run import LoadOptions, SourceFiles, read_side_tables
from indexer.write.rejects import Rejects

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


@dataclasses.dataclass
class Phase:
    name: str
    providers: int
    documents: int
    elapsed_s: float
    es_cpu_s: float
    client_cpu_s: float
    peak_rss_mb: float

    @property
    def providers_per_s(self) -> float:
        return self.providers / self.elapsed_s


async def _es_cpu_s(es: AsyncElasticsearch) -> float:
    stats = await es.nodes.stats(metric="process")
    return (
        float(sum(n["process"]["cpu"]["total_in_millis"] for n in stats["nodes"].values())) / 1000
    )


def _sources(args: argparse.Namespace) -> SourceFiles:
    side = SourceFiles.discover(args.source_dir)
    coverage = (args.coverage,) if args.coverage else ()
    return dataclasses.replace(side, nppes=args.nppes, coverage=coverage)


def _cli_args(sources: SourceFiles) -> list[str]:
    args = ["--nppes", str(sources.nppes), "--nucc", str(sources.nucc)]
    for flag, path in (
        ("--hospitals", sources.hospitals),
        ("--plans", sources.plans),
        ("--plan-county", sources.plan_county),
        ("--zip-plan", sources.zip_plan),
    ):
        if path is not None:
            args += [flag, str(path)]
    for flag, paths in (("--dac", sources.dac), ("--coverage", sources.coverage)):
        for path in paths:
            args += [flag, str(path)]
    return args


async def run_indexer(
    es: AsyncElasticsearch, url: str, sources: SourceFiles, args: argparse.Namespace
) -> Phase:
    prefix = f"bench-indexer-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as scratch:
        report_path = Path(scratch) / "report.json"
        command = [sys.executable, "-m", "indexer.cli", "--es-url", url, "--prefix", prefix]
        command += ["load", *_cli_args(sources), "--report-json", str(report_path)]
        command += ["--chunk-size", str(args.chunk_size), "--concurrency", str(args.concurrency)]
        command += ["--reject-file", str(Path(scratch) / "rejects.csv")]
        es_before, started = await _es_cpu_s(es), time.monotonic()
        done = await asyncio.to_thread(subprocess.run, command, cwd=ROOT, capture_output=True)
        elapsed = time.monotonic() - started
        if done.returncode != 0:
            raise SystemExit(f"indexer failed:\n{done.stderr.decode()}")
        report = json.loads(report_path.read_text())
    es_cpu = await _es_cpu_s(es) - es_before
    await es.indices.delete(index=f"{prefix}-*", allow_no_indices=True)
    documents = sum(report["documents"].values())
    return Phase(
        "indexer",
        report["indexed"],
        documents,
        elapsed,
        es_cpu,
        report["cpu_s"],
        report["peak_rss_mb"],
    )


def _write_ndjson(sources: SourceFiles, indices: dict[Any, str], path: Path) -> LoadReport:
    """The documents the indexer would write, as bulk NDJSON lines (built once, untimed)."""
    report = LoadReport(version=versions.new_version())
    with Rejects(path.with_suffix(".rejects.csv")) as rejects, open(path, "wb") as out:
        tables = read_side_tables(sources, rejects, report)
        for header, body, _ in ActionStream(sources, tables, indices, report, rejects):
            out.write(header + b"\n" + body + b"\n")
    return report


def _read_ndjson(path: Path) -> Iterator[tuple[bytes, bytes]]:
    with open(path, "rb") as lines:
        for header in lines:
            yield header.rstrip(b"\n"), next(lines).rstrip(b"\n")


async def run_raw(
    es: AsyncElasticsearch, sources: SourceFiles, args: argparse.Namespace, scratch: Path
) -> Phase:
    names = IndexNames(f"bench-raw-{uuid.uuid4().hex[:8]}")
    version = versions.new_version()
    indices = await versions.create_version(es, names, version, shards=1)
    ndjson = scratch / "documents.ndjson"
    report = await asyncio.to_thread(_write_ndjson, sources, indices, ndjson)
    actions = _read_ndjson(ndjson)  # one iterator shared by the concurrent senders

    async def sender() -> None:
        await async_bulk(
            es,
            actions,  # type: ignore[arg-type]  # pre-serialised, framed by itemgetter
            chunk_size=args.chunk_size,
            expand_action_callback=itemgetter(0, 1),
            max_retries=5,
            initial_backoff=0.5,
            max_backoff=10,
        )

    cpu_before = time.process_time()
    es_before, started = await _es_cpu_s(es), time.monotonic()
    await asyncio.gather(*(sender() for _ in range(args.concurrency)))
    await versions.finish_version(es, list(indices.values()), replicas=0)
    elapsed = time.monotonic() - started
    es_cpu = await _es_cpu_s(es) - es_before
    counts = await versions.count_documents(es, indices)
    await versions.delete_indices(es, list(indices.values()))
    ndjson.unlink()
    if counts["providers"] != report.expected["providers"]:
        raise SystemExit(f"raw load indexed {counts}, expected {dict(report.expected)}")
    return Phase(
        "raw async_bulk",
        counts["providers"],
        sum(counts.values()),
        elapsed,
        es_cpu,
        time.process_time() - cpu_before,
        0.0,
    )


def stream_only(sources: SourceFiles) -> None:
    """Everything a load does in Python before the bulk helper, for files too big to index here."""
    report = LoadReport(version=versions.new_version())
    started, cpu = time.monotonic(), time.process_time()
    with tempfile.TemporaryDirectory() as scratch, Rejects(Path(scratch) / "r.csv") as rejects:
        tables = read_side_tables(sources, rejects, report)
        indices = {kind: f"stream-only-{kind}" for kind in INDEX_KINDS}
        actions = sum(1 for _ in ActionStream(sources, tables, indices, report, rejects))
    elapsed = time.monotonic() - started
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{sources.nppes_file.name}: {report.rows_read:,} rows, {report.indexed:,} providers,"
        f" {actions:,} documents built in {elapsed:.0f} s ({report.indexed / elapsed:,.0f}"
        f" providers/s, CPU {time.process_time() - cpu:.0f} s), accounted {report.accounted},"
        f" peak RSS {rss:,.0f} MB"
    )


def _table(rows: list[tuple[Phase, Phase]]) -> str:
    lines = [
        "| run | indexer providers/s | raw providers/s | ratio | indexer s | raw s |"
        " docs | ES CPU s (idx/raw) | indexer CPU s | indexer peak RSS MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for number, (indexer, raw) in enumerate(rows, start=1):
        lines.append(
            f"| {number} | {indexer.providers_per_s:,.0f} | {raw.providers_per_s:,.0f} |"
            f" {indexer.providers_per_s / raw.providers_per_s:.0%} | {indexer.elapsed_s:.1f} |"
            f" {raw.elapsed_s:.1f} | {indexer.documents:,} |"
            f" {indexer.es_cpu_s:.0f} / {raw.es_cpu_s:.0f} | {indexer.client_cpu_s:.0f} |"
            f" {indexer.peak_rss_mb:,.0f} |"
        )
    ratios = [i.providers_per_s / r.providers_per_s for i, r in rows]
    lines.append(f"\nmedian ratio {statistics.median(ratios):.0%}")
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> None:
    url = args.es_url or es_launcher.start().url
    es = make_client(url, request_timeout=300)
    sources = _sources(args)
    rows: list[tuple[Phase, Phase]] = []
    try:
        with tempfile.TemporaryDirectory(dir=args.scratch) as scratch:
            for _ in range(args.repeat):
                indexer = await run_indexer(es, url, sources, args)
                raw = await run_raw(es, sources, args, Path(scratch))
                rows.append((indexer, raw))
                print(_table(rows[-1:]), flush=True)
    finally:
        await es.close()
    print(f"\n{args.nppes.name}, chunk {args.chunk_size}, concurrency {args.concurrency}")
    print(_table(rows))
    RESULTS.mkdir(parents=True, exist_ok=True)
    result = RESULTS / f"indexer-{time.strftime('%Y%m%dT%H%M%S')}.json"
    result.write_bytes(
        orjson.dumps(
            {
                "args": {k: str(v) for k, v in vars(args).items()},
                "runs": [[dataclasses.asdict(p) for p in pair] for pair in rows],
            },
            option=orjson.OPT_INDENT_2,
        )
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--nppes", type=Path, required=True)
    parser.add_argument("--source-dir", type=Path, default=ROOT / "data" / "sample")
    parser.add_argument("--coverage", type=Path, help="coverage file matching --nppes")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--chunk-size", type=int, default=LoadOptions.chunk_size)
    parser.add_argument("--concurrency", type=int, default=LoadOptions.concurrency)
    parser.add_argument("--es-url", default=LauncherSettings().elasticsearch_url)
    parser.add_argument("--scratch", type=Path, help="where the NDJSON goes (default: /tmp)")
    parser.add_argument(
        "--stream-only",
        action="store_true",
        help="no Elasticsearch: read and build every document of --nppes, report rate and memory",
    )
    args = parser.parse_args(argv)
    if args.stream_only:
        stream_only(_sources(args))
    else:
        asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
