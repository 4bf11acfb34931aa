"""``provider-indexer``: load the sources into a new index version and swap, apply weekly updates
in place, show status, roll back, and generate NPPES-format scale, update and coverage files
(the flags: indexer.cli.parsers; what status says: indexer.cli.status)."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import signal
import sys
from pathlib import Path
from typing import Any

import orjson
from elasticsearch import ApiError, TransportError

from core.index_contract import IndexNames
from indexer.audit import audit_plan_net, scorecard_lines
from indexer.cli.parsers import parser
from indexer.cli.status import rollback_lines, status_lines
from indexer.generate.coverage import generate_coverage
from indexer.generate.nppes import generate_nppes
from indexer.generate.plan_net import generate_plan_net
from indexer.generate.weekly import UpdateCounts, generate_update
from indexer.load.report import format_report
from indexer.load.run import LoadError, LoadOptions, SourceFiles, load
from indexer.lock import LockHeld, LockLost
from indexer.provenance import JoinFiles, ProvenanceError
from indexer.settings import IndexerSettings
from indexer.sources.discovery import PlanFiles
from indexer.update.coverage import update_coverage
from indexer.update.nppes import update_nppes
from indexer.update.options import UpdateError, UpdateOptions
from indexer.update.plan_net import update_plan_net
from indexer.update.plans import update_plans
from indexer.update.report import format_update_report

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "data" / "sample"
_INTERRUPTED = {
    "load": "interrupted: partial indices removed, aliases unchanged",
    "update": "interrupted: every provider is as it was or as the file makes it; run the update"
    " again to complete it",
}
_FAILED = {
    "load": "aliases unchanged; the next load removes what this one left",
    "update": "every provider is as it was or as the file makes it; run the update again",
}


def _plan_side_files(args: argparse.Namespace, found: SourceFiles | None) -> dict[str, Any]:
    """The Plan Finder files read with the plan file: as named, else as found."""
    names = ("plan_county", "zip_plan", "star_ratings", "plan_details")
    return {
        name: getattr(args, name) or (getattr(found, name) if found else None) for name in names
    }


def _sources(args: argparse.Namespace) -> SourceFiles:
    if args.source_dir:
        found = SourceFiles.discover(args.source_dir)
    elif args.nucc and (args.nppes or args.plan_net):
        found = SourceFiles(nppes=args.nppes, nucc=args.nucc)
    else:
        raise SystemExit("load: give --source-dir, or --nucc with --nppes and/or --plan-net")
    return SourceFiles(
        nppes=args.nppes or found.nppes,
        nucc=args.nucc or found.nucc,
        dac=tuple(args.dac) if args.dac else found.dac,
        hospitals=args.hospitals or found.hospitals,
        plans=args.plans or found.plans,
        **_plan_side_files(args, found),
        coverage=tuple(args.coverage) if args.coverage else found.coverage,
        plan_net=args.plan_net,
        plan_net_name=args.plan_net_name,
    )


def _join_files(args: argparse.Namespace) -> JoinFiles | None:
    """The side files named on the command line, or None: those the live version records."""
    if not (args.source_dir or args.nucc or args.dac or args.hospitals):
        return None
    found = SourceFiles.discover(args.source_dir) if args.source_dir else None
    nucc = args.nucc or (found.nucc if found else None)
    if nucc is None:
        raise SystemExit("update: with --dac or --hospitals, give --nucc or --source-dir too")
    return JoinFiles(
        nucc=nucc,
        dac=tuple(args.dac) if args.dac else found.dac if found else (),
        hospitals=args.hospitals or (found.hospitals if found else None),
    )


def _write_json(path: Path | None, document: object) -> None:
    if path is not None:
        path.write_bytes(orjson.dumps(document))


async def _load(es: Any, names: IndexNames, args: argparse.Namespace) -> int:
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
        replica_wait_s=args.replica_wait,
        reject_file=args.reject_file,
        progress=sys.stderr.isatty(),
        changes_retention_days=args.changes_retention_days,
    )
    report = await load(es, _sources(args), options)
    print("\n".join(format_report(report)))
    _write_json(args.report_json, report.as_json())
    return 0


async def _update(es: Any, names: IndexNames, args: argparse.Namespace) -> int:
    options = UpdateOptions(
        names=names,
        join_files=_join_files(args),
        reject_file=args.reject_file,
        batch_rows=args.batch_rows,
        max_bulk_errors=args.max_bulk_errors,
        changes_retention_days=args.changes_retention_days,
    )
    if args.nppes:
        report = await update_nppes(es, args.nppes, options)
    elif args.plan_net:
        report = await update_plan_net(es, args.plan_net, options, args.plan_net_name)
    elif args.plans:
        files = PlanFiles.beside(args.plans, **_plan_side_files(args, None))
        report = await update_plans(es, files, options)
    else:
        report = await update_coverage(es, args.coverage, options)
    print("\n".join(format_update_report(report)))
    _write_json(args.report_json, report.as_json())
    return 0 if report.accounted else 1


async def _audit(es: Any, names: IndexNames, args: argparse.Namespace) -> int:
    files = None
    if args.nucc:
        files = JoinFiles(nucc=args.nucc)
    card = await audit_plan_net(es, names, args.plan_net, args.name, files)
    if args.json:
        print(orjson.dumps(card, option=orjson.OPT_INDENT_2).decode())
    else:
        print("\n".join(scorecard_lines(card)))
    return 0


async def _run(args: argparse.Namespace, settings: IndexerSettings) -> int:
    # SIGTERM cancels the work like Ctrl-C does: the job's clean-up runs, then we exit.
    task = asyncio.current_task()
    assert task is not None
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    names = IndexNames(args.prefix)
    es = settings.connect(args.es_url, request_timeout=120)
    try:
        if args.command == "load":
            return await _load(es, names, args)
        if args.command == "update":
            return await _update(es, names, args)
        if args.command == "audit":
            return await _audit(es, names, args)
        if args.command == "status":
            lines, complete = await status_lines(es, names)
            print("\n".join(lines))
            return 0 if complete else 1  # something is not loaded: scripts and probes can tell
        print("\n".join(await rollback_lines(es, names, settings.changes_retention_days)))
        return 0
    finally:
        await es.close()


def _generate(args: argparse.Namespace) -> int:
    stats: object
    source = args.source if "source" in args and args.source else None
    if args.command == "generate":
        stats = generate_nppes(
            source or SourceFiles.discover(SAMPLE_DIR).nppes_file,
            args.out,
            args.count,
            seed=args.seed,
        )
    elif args.command == "generate-update":
        stats = _generate_update(source or SourceFiles.discover(SAMPLE_DIR).nppes_file, args)
    elif args.command == "generate-plan-net":
        stats = generate_plan_net(
            args.nppes,
            args.out,
            seed=args.seed,
            payer=args.payer,
            plans=args.plans,
            nucc=args.nucc,
            faults=args.faults,
            truth=args.truth,
        )
    else:
        stats = generate_coverage(
            args.nppes, args.plans, args.zip_plan, args.plan_county, args.out, seed=args.seed
        )
    print(stats)
    return 0


def _generate_update(source: Path, args: argparse.Namespace) -> object:
    kinds = ("new", "changed", "deactivated", "reactivated", "stale", "invalid")
    exact = {kind: getattr(args, kind) for kind in kinds if getattr(args, kind) is not None}
    counts = None  # a real week's mix of 0.2 % of the source
    if args.rows is not None:
        counts = UpdateCounts.week(0, args.rows)
    if exact:  # exactly these kinds (and those of --rows, if given)
        counts = dataclasses.replace(counts or UpdateCounts(0, 0, 0, 0, 0), **exact)
    return generate_update(source, args.out, counts, seed=args.seed, week=args.date)


def main(argv: list[str] | None = None) -> int:
    settings = IndexerSettings()
    args = parser(settings).parse_args(argv)
    try:
        if args.command.startswith("generate"):
            return _generate(args)
        return asyncio.run(_run(args, settings))
    except (KeyboardInterrupt, asyncio.CancelledError):
        print(_INTERRUPTED.get(args.command, "interrupted"), file=sys.stderr)
        return 130
    except (LockHeld, LockLost) as error:
        print(f"error: {error}", file=sys.stderr)
        return 75  # EX_TEMPFAIL: try again later
    except (LoadError, UpdateError, ProvenanceError, LookupError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except (ApiError, TransportError) as error:
        print(f"error: Elasticsearch at {args.es_url}: {error}", file=sys.stderr)
        print(_FAILED.get(args.command, "nothing was changed"), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
