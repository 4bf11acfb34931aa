"""``provider-indexer``: load the sources into new index versions, show status, roll back."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from pathlib import Path

from elasticsearch import AsyncElasticsearch

from core.es_client import make_client
from core.index_contract import DEFAULT_PREFIX, IndexNames
from indexer import versions
from indexer.load import LoadError, LoadOptions, LoadReport, SourceFiles, load


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="provider-indexer", description=__doc__)
    parser.add_argument(
        "--es-url", default=os.environ.get("ELASTICSEARCH_URL", "http://127.0.0.1:9200")
    )
    parser.add_argument(
        "--prefix",
        default=os.environ.get("PD_INDEX_PREFIX", DEFAULT_PREFIX),
        help="index/alias name prefix",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("load", help="load source files into a new version and swap")
    run.add_argument("--source-dir", type=Path, help="directory holding the source files")
    run.add_argument("--nppes", type=Path, help="NPPES npidata_pfile CSV (plain or gzip)")
    run.add_argument("--nucc", type=Path, help="NUCC taxonomy CSV")
    run.add_argument("--shards", type=int, default=int(os.environ.get("PD_SHARDS", "1")))
    run.add_argument("--replicas", type=int, default=int(os.environ.get("PD_REPLICAS", "0")))
    run.add_argument("--max-bulk-errors", type=int, default=0)
    run.add_argument("--reject-file", type=Path, help="CSV of rejected rows (row, npi, reason)")
    commands.add_parser("status", help="what each alias points to, with document counts")
    commands.add_parser("rollback", help="swap every alias back to the previous version")
    return parser


def _sources(args: argparse.Namespace) -> SourceFiles:
    if args.source_dir:
        found = SourceFiles.discover(args.source_dir)
        return SourceFiles(nppes=args.nppes or found.nppes, nucc=args.nucc or found.nucc)
    if not (args.nppes and args.nucc):
        raise SystemExit("load: give --source-dir, or both --nppes and --nucc")
    return SourceFiles(nppes=args.nppes, nucc=args.nucc)


def print_report(report: LoadReport) -> None:
    print(f"version         {report.version}")
    print(f"rows read       {report.rows_read}")
    print(f"deactivated     {report.deactivated}")
    rejected = ", ".join(f"{k}={v}" for k, v in sorted(report.rejected.items())) or "none"
    print(f"rejected        {sum(report.rejected.values())} ({rejected})")
    for kind, count in sorted(report.documents.items()):
        print(f"docs {kind:<11}{count}")
    rate = report.rows_read / max(report.elapsed_s, 1e-9)
    print(f"elapsed         {report.elapsed_s:.1f} s ({rate:,.0f} rows/s)")


async def _run(args: argparse.Namespace) -> int:
    names = IndexNames(args.prefix)
    es: AsyncElasticsearch = make_client(args.es_url, request_timeout=120)
    try:
        if args.command == "load":
            options = LoadOptions(
                names=names,
                shards=args.shards,
                replicas=args.replicas,
                max_bulk_errors=args.max_bulk_errors,
                reject_file=args.reject_file,
                progress=sys.stderr.isatty(),
            )
            print_report(await load(es, _sources(args), options))
        elif args.command == "status":
            for state in await versions.alias_states(es, names):
                target = state.index or "(missing)"
                print(f"{state.alias:<36} -> {target:<56} {state.documents:>9} docs")
        else:
            print(f"rolled back to version {await versions.rollback(es, names)}")
    finally:
        await es.close()
    return 0


def _raise_on_sigterm(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    signal.signal(signal.SIGTERM, _raise_on_sigterm)  # same clean-up path as Ctrl-C
    try:
        return asyncio.run(_run(args))
    except KeyboardInterrupt:
        print("interrupted: partial indices removed, aliases unchanged", file=sys.stderr)
        return 130
    except (LoadError, LookupError, FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
