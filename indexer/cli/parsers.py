"""The command line of ``provider-indexer``: every subcommand and its flags (the connection
flags take their defaults from IndexerSettings)."""

from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path

from indexer.generate.plan_net_faults import DEFAULT_RATES, FAULT_CODES, parse_fault_rates
from indexer.load.run import LoadOptions
from indexer.settings import IndexerSettings
from indexer.update.options import UpdateOptions


def _join_flags(parser: argparse.ArgumentParser) -> None:
    """The files an NPPES row is joined with (load; update when they are not the recorded ones)."""
    parser.add_argument("--source-dir", type=Path, help="directory holding the source files")
    parser.add_argument("--nucc", type=Path, help="NUCC taxonomy CSV")
    parser.add_argument("--dac", type=Path, action="append", help="DAC file (repeatable)")
    parser.add_argument("--hospitals", type=Path, help="Hospital General Information CSV")


def _plan_side_flags(parser: argparse.ArgumentParser) -> None:
    """The Plan Finder files read with the plan file (load; update --plans, where they default
    to those beside the plan file)."""
    parser.add_argument("--plan-county", type=Path, help="Plan Finder plan-by-county CSV")
    parser.add_argument("--zip-plan", type=Path, help="Plan Finder plan-by-ZIP CSV")
    parser.add_argument("--star-ratings", type=Path, help="Medicare star ratings by contract CSV")
    parser.add_argument("--plan-details", type=Path, help="scraped Plan Finder plan pages NDJSON")


def _load_parser(parser: argparse.ArgumentParser, settings: IndexerSettings) -> None:
    _join_flags(parser)
    parser.add_argument("--nppes", type=Path, help="NPPES npidata_pfile CSV (plain or gzip)")
    parser.add_argument("--plans", type=Path, help="Plan Finder plans CSV")
    _plan_side_flags(parser)
    parser.add_argument("--coverage", type=Path, action="append", help="coverage CSV (repeatable)")
    parser.add_argument(
        "--plan-net",
        type=Path,
        metavar="DIR",
        help="a payer's Plan-Net export (NDJSON per type, or Bundles), beside --nppes or alone",
    )
    _plan_net_name(parser)
    parser.add_argument("--shards", type=int, default=settings.shards, help="PD_SHARDS")
    parser.add_argument(
        "--replicas",
        type=int,
        default=settings.replicas,
        help="PD_REPLICAS; added after the load, waited for before the swap",
    )
    parser.add_argument(
        "--replica-wait",
        type=float,
        default=settings.replica_wait_s,
        metavar="SECONDS",
        help="PD_REPLICA_WAIT_S: how long the swap waits for the replicas to be placed; then it"
        " goes ahead while every primary is active (yellow), never while one is missing (red)",
    )
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
    _retention_flag(parser, settings)
    _report_flags(parser, "CSV of rejected rows (default rejects/<version>.csv)")


def _plan_net_name(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--plan-net-name",
        metavar="NAME",
        help="the directory's source name, 'plan-net:NAME' on every value it gives (default:"
        " the export directory's name); an update replaces what the load of that name gave",
    )


def _report_flags(parser: argparse.ArgumentParser, reject_help: str) -> None:
    parser.add_argument("--reject-file", type=Path, help=reject_help)
    parser.add_argument("--report-json", type=Path, help="also write the report as JSON here")


def _update_parser(parser: argparse.ArgumentParser, settings: IndexerSettings) -> None:
    change = parser.add_mutually_exclusive_group(required=True)
    change.add_argument(
        "--nppes", type=Path, help="an NPPES incremental (weekly) file: same format as the full one"
    )
    change.add_argument(
        "--coverage",
        type=Path,
        help="coverage rows to add, change or remove (the coverage CSV plus an action column)",
    )
    change.add_argument(
        "--plan-net",
        type=Path,
        metavar="DIR",
        help="a newer Plan-Net export of a directory loaded before: what it says replaces what"
        " the older one said (roles, networks, languages, locations)",
    )
    change.add_argument(
        "--plans",
        type=Path,
        help="a newer Plan Finder plans CSV: plans, costs, star ratings and service areas"
        " replaced in place (the plan-by-ZIP, plan-by-county, star rating and plan page files"
        " beside it are read too, unless named)",
    )
    _plan_side_flags(parser)
    _plan_net_name(parser)
    _join_flags(parser)
    parser.description = (
        "Apply a file to the live version in place. NPPES rows are joined with the side files"
        " the live version was built from (recorded at load, checked unchanged); give"
        " --source-dir or --nucc/--dac/--hospitals only to join with other files."
    )
    parser.add_argument("--max-bulk-errors", type=int, default=UpdateOptions.max_bulk_errors)
    parser.add_argument("--batch-rows", type=int, default=UpdateOptions.batch_rows)
    _retention_flag(parser, settings)
    _report_flags(parser, "CSV of rejected rows (default rejects/update-<kind>-...csv)")


def _retention_flag(parser: argparse.ArgumentParser, settings: IndexerSettings) -> None:
    parser.add_argument(
        "--changes-retention-days",
        type=int,
        default=settings.changes_retention_days,
        help="how long the change feed keeps a record (default: PD_CHANGES_RETENTION_DAYS)",
    )


def _audit_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--plan-net", type=Path, metavar="DIR", required=True, help="the Plan-Net export to score"
    )
    parser.add_argument(
        "--name",
        metavar="NAME",
        help="score it as the directory of this name (default: the export directory's name);"
        " a loaded directory's name scores it as if it replaced that one",
    )
    parser.add_argument("--nucc", type=Path, help="NUCC taxonomy CSV (default: the recorded one)")
    parser.add_argument("--json", action="store_true", help="print the scorecard as JSON")
    parser.description = (
        "Score a Plan-Net export against what the live version serves, as a load of it would"
        " score it (GET /v2/directories/{name}), without loading it: nothing is written."
    )


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
    plan_net = commands.add_parser(
        "generate-plan-net",
        help="write a synthetic Plan-Net export (every resource type, NDJSON per type) of the"
        " providers of an NPPES file",
    )
    plan_net.add_argument("--nppes", type=Path, required=True)
    plan_net.add_argument("--out", type=Path, required=True, help="the export directory")
    plan_net.add_argument("--plans", type=Path, help="Plan Finder plans CSV: real bid ids")
    plan_net.add_argument("--nucc", type=Path, help="NUCC taxonomy CSV: specialty names")
    plan_net.add_argument("--payer", default="Synthetic Health Plan")
    plan_net.add_argument("--seed", type=int, default=1)
    _fault_flags(plan_net)
    update = commands.add_parser(
        "generate-update",
        help="write an NPPES weekly incremental file made from the rows of an NPPES file",
    )
    update.add_argument(
        "--source", type=Path, help="NPPES file the week changes (default: the bundled sample)"
    )
    update.add_argument("--out", type=Path, required=True, help="output .csv or .csv.gz")
    update.add_argument(
        "--rows", type=int, help="rows in a real week's proportions (default 0.2 %% of the source)"
    )
    for kind in ("new", "changed", "deactivated", "reactivated", "stale", "invalid"):
        update.add_argument(f"--{kind}", type=int, help=f"exactly this many {kind} rows")
    update.add_argument(
        "--date", type=date.fromisoformat, help="the week's date (default: latest in source + 7)"
    )
    update.add_argument("--seed", type=int, default=1)


def _fault_flags(plan_net: argparse.ArgumentParser) -> None:
    default = ", ".join(f"{code}={rate}" for code, rate in DEFAULT_RATES.items())
    plan_net.add_argument(
        "--faults",
        nargs="?",
        const=dict(DEFAULT_RATES),
        type=_fault_rates,
        metavar="SPEC",
        help=f"inject known defects: KIND=RATE,... (rate per eligible record, in [0, 1]; kinds:"
        f" {', '.join(FAULT_CODES)}); alone or 'default': {default}",
    )
    plan_net.add_argument(
        "--truth",
        type=Path,
        metavar="PATH",
        help="the JSON file listing every defect published (default: <out>.truth.json, beside"
        " the export); alone, nothing is injected and the file's own defects are listed",
    )


def _fault_rates(spec: str) -> dict[str, float]:
    try:
        return parse_fault_rates(spec)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def parser(settings: IndexerSettings) -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(
        prog="provider-indexer",
        description="Load the sources into a new index version and swap; apply weekly updates"
        " in place; show status, roll back; generate scale and update files.",
    )
    main.add_argument(
        "--es-url",
        default=settings.elasticsearch_url,
        help="one address or several nodes, comma-separated (default: ELASTICSEARCH_URL)",
    )
    main.add_argument(
        "--prefix",
        default=settings.index_prefix,
        help="index/alias name prefix (default: PD_INDEX_PREFIX)",
    )
    commands = main.add_subparsers(dest="command", required=True)
    _load_parser(
        commands.add_parser("load", help="load the sources into a new version, swap"), settings
    )
    _update_parser(
        commands.add_parser("update", help="apply an NPPES weekly file or coverage changes"),
        settings,
    )
    commands.add_parser(
        "status",
        help="what each alias points to, the updates applied, the running job (exit 1 when"
        " an alias is missing)",
    )
    commands.add_parser("rollback", help="swap every alias back to the previous full version")
    _audit_parser(commands.add_parser("audit", help="score a Plan-Net export without loading it"))
    _generate_parsers(commands)
    return main


def _key_value(text: str) -> tuple[str, str]:
    key, equals, value = text.partition("=")
    if not equals or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value
