"""``provider-indexer``: load the sources into a new index version and swap, show status, roll
back, and generate NPPES-format scale files and synthetic coverage files."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from pathlib import Path

import orjson
from elasticsearch import ApiError, TransportError

from core.es_client import make_client
from core.index_contract import IndexNames
from indexer import versions
from indexer.generate import generate_nppes
from indexer.generate_coverage import generate_coverage
from indexer.load import LoadError, LoadOptions, SourceFiles, load
from indexer.report import LoadReport, format_report
from indexer.settings import IndexerSettings

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "data" / "sample"


def _load_parser(parser: argparse.ArgumentParser, settings: IndexerSettings) -> None:
    parser.add_argument("--source-dir", type=Path, help="directory holding the source files")
    parser.add_argument("--nppes", type=Path, help="NPPES npidata_pfile CSV (plain or gzip)")
    parser.add_argument("--nucc", type=Path, help="NUCC taxonomy CSV")
    parser.add_argument("--dac", type=Path, action="append", help="DAC file (repeatable)")
    parser.add_argument("--hospitals", type=Path, help="Hospital General Information CSV")
    parser.add_argument("--plans", type=Path, help="Plan Finder plans CSV")
    parser.add_argument("--plan-county", type=Path, help="Plan Finder plan-by-county CSV")
    parser.add_argument("--zip-plan", type=Path, help="Plan Finder plan-by-ZIP CSV")
    parser.add_argument("--coverage", type=Path, action="append", help="coverage CSV (repeatable)")
    parser.add_argument("--shards", type=int, default=settings.shards, help="PD_SHARDS")
    parser.add_argument("--replicas", type=int, default=settings.replicas, help="PD_REPLICAS")
    parser.add_argument("--max-bulk-errors", type=int, default=0)
    parser.add_argument("--chunk-size", type=int, default=LoadOptions.chunk_size)
    parser.add_argument("--concurrency", type=int, default=LoadOptions.concurrency)
    parser.add_argument("--keep-versions", type=int, default=LoadOptions.keep_versions)
    parser.add_argument(
        "--no-force-merge",
        action="store_true",
        help="serve the new version as loaded, without merging it into one segment first",
    )
    parser.add_argument(
        "--no-disk-check",
        action="store_true",
        help="start even when the estimated size of the new version exceeds the free disk",
    )
    parser.add_argument(
        "--load-setting",
        action="append",
        default=[],
        type=_key_value,
        metavar="KEY=VALUE",
        help="an index setting of the search index while it loads (repeatable), e.g."
        " index.merge.policy.segments_per_tier=20",
    )
    parser.add_argument(
        "--reject-file", type=Path, help="CSV of rejected rows (default rejects/<version>.csv)"
    )
    parser.add_argument("--report-json", type=Path, help="also write the report as JSON here")


def _generate_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    generate = commands.add_parser(
        "generate", help="write an NPPES-format file of N providers resampled from real rows"
    )
    generate.add_argument("count", type=int, help="number of providers (rows) to write")
    generate.add_argument("--out", type=Path, required=True, help="output .csv or .csv.gz")
    generate.add_argument(
        "--source", type=Path, help="real NPPES file to resample (default: the bundled sample)"
    )
    generate.add_argument("--seed", type=int, default=1)
    coverage = commands.add_parser(
        "generate-coverage",
        help="write a synthetic coverage CSV linking real NPIs to real plans by geography",
    )
    coverage.add_argument("--nppes", type=Path, required=True)
    coverage.add_argument("--zip-plan", type=Path)
    coverage.add_argument("--plan-county", type=Path)
    coverage.add_argument("--plans", type=Path, required=True)
    coverage.add_argument("--out", type=Path, required=True)
    coverage.add_argument("--seed", type=int, default=1)


def _parser(settings: IndexerSettings) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="provider-indexer", description=__doc__)
    parser.add_argument(
        "--es-url", default=settings.elasticsearch_url, help="default: ELASTICSEARCH_URL"
    )
    parser.add_argument(
        "--prefix",
        default=settings.index_prefix,
        help="index/alias name prefix (default: PD_INDEX_PREFIX)",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    _load_parser(
        commands.add_parser("load", help="load the sources into a new version, swap"), settings
    )
    commands.add_parser(
        "status",
        help="what each alias points to, documents, when loaded (exit 1 when one is missing)",
    )
    commands.add_parser("rollback", help="swap every alias back to the previous version")
    _generate_parsers(commands)
    return parser


def _sources(args: argparse.Namespace) -> SourceFiles:
    if args.source_dir:
        found = SourceFiles.discover(args.source_dir)
    elif args.nppes and args.nucc:
        found = SourceFiles(nppes=args.nppes, nucc=args.nucc)
    else:
        raise SystemExit("load: give --source-dir, or both --nppes and --nucc")
    return SourceFiles(
        nppes=args.nppes or found.nppes,
        nucc=args.nucc or found.nucc,
        dac=tuple(args.dac) if args.dac else found.dac,
        hospitals=args.hospitals or found.hospitals,
        plans=args.plans or found.plans,
        plan_county=args.plan_county or found.plan_county,
        zip_plan=args.zip_plan or found.zip_plan,
        coverage=tuple(args.coverage) if args.coverage else found.coverage,
    )


def _key_value(text: str) -> tuple[str, str]:
    key, equals, value = text.partition("=")
    if not equals or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def print_report(report: LoadReport) -> None:
    print("\n".join(format_report(report)))


async def _run(args: argparse.Namespace) -> int:
    # SIGTERM cancels the work like Ctrl-C does: the load's clean-up runs, then we exit.
    task = asyncio.current_task()
    assert task is not None
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    names = IndexNames(args.prefix)
    es = make_client(args.es_url, request_timeout=120)
    try:
        if args.command == "load":
            options = LoadOptions(
                names=names,
                shards=args.shards,
                replicas=args.replicas,
                max_bulk_errors=args.max_bulk_errors,
                chunk_size=args.chunk_size,
                concurrency=args.concurrency,
                keep_versions=args.keep_versions,
                load_settings=dict(args.load_setting),
                disk_check=not args.no_disk_check,
                force_merge=not args.no_force_merge,
                reject_file=args.reject_file,
                progress=sys.stderr.isatty(),
            )
            report = await load(es, _sources(args), options)
            print_report(report)
            if args.report_json:
                args.report_json.write_bytes(orjson.dumps(report.as_json()))
        elif args.command == "status":
            states = await versions.alias_states(es, names)
            for state in states:
                target = state.index or "(missing)"
                loaded = state.loaded_at or "-"
                print(f"{state.alias:<32} -> {target:<52} {state.documents:>9} docs  {loaded}")
            if any(state.index is None for state in states):
                return 1  # something is not loaded: scripts and probes can tell
        else:
            print(f"rolled back to version {await versions.rollback(es, names)}")
    finally:
        await es.close()
    return 0


def _generate(args: argparse.Namespace) -> int:
    stats: object
    if args.command == "generate":
        source = args.source or SourceFiles.discover(SAMPLE_DIR).nppes
        stats = generate_nppes(source, args.out, args.count, seed=args.seed)
    else:
        stats = generate_coverage(
            args.nppes, args.plans, args.zip_plan, args.plan_county, args.out, seed=args.seed
        )
    print(stats)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser(IndexerSettings()).parse_args(argv)
    try:
        if args.command.startswith("generate"):
            return _generate(args)
        return asyncio.run(_run(args))
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("interrupted: partial indices removed, aliases unchanged", file=sys.stderr)
        return 130
    except (LoadError, LookupError, FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except (ApiError, TransportError) as error:
        print(f"error: Elasticsearch at {args.es_url}: {error}", file=sys.stderr)
        print("aliases unchanged; the next load removes what this one left", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
