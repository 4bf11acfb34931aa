"""One load: read the sources, write a new version of every index, verify, swap the aliases.

Anything that fails before the swap (bad file, bulk errors over the threshold, Elasticsearch down,
Ctrl-C, SIGTERM) deletes the partial indices and leaves the aliases exactly as they were; a load
killed outright (SIGKILL) leaves its indices behind, and the next load removes them first.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from elasticsearch import AsyncElasticsearch

from core.change_log import DEFAULT_RETENTION_DAYS
from core.changes import now
from core.geo import lookup_zip
from core.index_contract import IndexKind, IndexNames
from indexer import change_log, digest_store, provenance, versions
from indexer.assembly.plans import plan_file_rows, read_offered_plans
from indexer.change_diff import read_served, record_difference
from indexer.change_log import ChangeLog
from indexer.load import preflight
from indexer.load.pipeline import ActionStream, SideTables
from indexer.load.replicas import CopiesUnavailable, check_replicas, wait_for_copies
from indexer.load.report import LoadReport as LoadReport
from indexer.lock import job_lock
from indexer.orphans import remove_orphans
from indexer.publication import publish
from indexer.sources.dac import DacTable, read_dac
from indexer.sources.discovery import SourceFiles as SourceFiles
from indexer.sources.hospitals import read_hospitals
from indexer.sources.nucc import read_nucc
from indexer.sources.plan_net import read_plan_net
from indexer.write.bulk import BulkResult, Origin, bulk_index
from indexer.write.bulk_errors import BULK_ERROR, BulkErrors
from indexer.write.collector import batch_gc
from indexer.write.rejects import Rejects


@dataclass(frozen=True)
class LoadOptions:
    names: IndexNames
    shards: int = 1
    replicas: int = 0
    keep_versions: int = 2
    max_bulk_errors: int = 0
    chunk_size: int = 3000
    concurrency: int = 3
    reject_file: Path | None = None  # default: rejects/<version>.csv
    progress: bool = False
    load_settings: dict[str, str] = field(default_factory=dict)  # search index, while loading
    disk_check: bool = (
        True  # refuse to start when the version will not fit (indexer.load.preflight)
    )
    force_merge: bool = True  # one segment per shard before the swap (versions.finish_version)
    # How long the swap waits for the replicas to be placed (indexer.load.replicas); then it goes
    # ahead if every primary is active. A 9M version's copies take minutes to recover.
    replica_wait_s: float = 900.0
    changes_retention_days: int = DEFAULT_RETENTION_DAYS  # indexer.change_log
    # The day confidence is scored for (core.confidence.Ages); default the load's own day. A
    # rebuild meant to equal another version's scores gives that version's day.
    scored_on: date | None = None


class LoadError(RuntimeError):
    """The load was abandoned; the aliases were not touched."""


def read_side_tables(sources: SourceFiles, rejects: Rejects, report: LoadReport) -> SideTables:
    """The small sources, read whole before any index exists (a bad file fails here)."""
    nucc = read_nucc(sources.nucc)
    hospitals = read_hospitals(sources.hospitals) if sources.hospitals else {}
    dac = read_dac(sources.dac, hospitals, rejects.add) if sources.dac else DacTable({}, {}, {})
    plans = read_offered_plans(sources.plan_files, rejects.add)
    report.source_rows.update(plan_file_rows(sources.plan_files))
    report.source_rows[sources.nucc.name] = len(nucc)
    if sources.hospitals:
        report.source_rows[sources.hospitals.name] = len(hospitals)
    report.source_rows.update(dac.rows_read)
    directory = None
    if sources.plan_net is not None:
        directory = read_plan_net(sources.plan_net, rejects.add, sources.plan_net_name)
        report.plan_net = directory.counts()
        report.plan_net_warnings = directory.warnings
        report.plan_net_normalised = directory.normalised
    return SideTables(nucc=nucc, dac=dac, plans=plans, plan_net=directory)


def _account_failures(
    result: BulkResult, indices: dict[IndexKind, str], report: LoadReport, errors: BulkErrors
) -> None:
    """Failed documents into the report and reject file. An NPPES row one of whose documents
    failed is rejected ("bulk_error"), once."""
    kind_of = {index: kind for kind, index in indices.items()}
    failed_rows: set[tuple[str, int]] = set()
    for failure in result.failed:
        kind = kind_of.get(failure.index, "?")
        origin = failure.origin or Origin("?", 0, "")
        report.bulk_failed[kind] += 1
        if kind in ("providers", "search"):
            failed_rows.add((origin.source, origin.row))
        errors.refused(origin, f"{kind}: {failure.reason}")
    if failed_rows:
        report.rejected[BULK_ERROR] += len(failed_rows)


async def load(es: AsyncElasticsearch, sources: SourceFiles, options: LoadOptions) -> LoadReport:
    """Build and publish a new version; returns the report. Raises with aliases untouched.
    Never runs beside another load or an update of the same prefix (indexer.lock)."""
    async with job_lock(es, options.names, "load", sources.main.name):
        return await _load(es, sources, options)


async def _load(es: AsyncElasticsearch, sources: SourceFiles, options: LoadOptions) -> LoadReport:
    started = time.monotonic()
    report = LoadReport(version=versions.new_version())
    report.scored_on = (options.scored_on or report.scoring_day()).isoformat()
    reject_path = options.reject_file or Path("rejects") / f"{report.version}.csv"
    with Rejects(reject_path) as rejects:
        # In a thread: the lock's heartbeat (indexer.lock) goes on while national files parse.
        tables = await asyncio.to_thread(read_side_tables, sources, rejects, report)
        record = {"sources": await asyncio.to_thread(provenance.describe, sources)}
        report.orphans_removed = await remove_orphans(es, options.names)
        try:
            await check_replicas(es, options.replicas)
        except CopiesUnavailable as error:
            raise LoadError(str(error)) from None
        if options.disk_check and sources.nppes is not None:
            try:
                await preflight.check_disk(es, sources.nppes, options.replicas)
            except preflight.NotEnoughDisk as error:
                raise LoadError(str(error)) from None
        # The ZIP table (core.geo) builds in a thread while Elasticsearch creates the indices
        # (and, on a first load, the change feed's and the digests'), before batch_gc freezes
        # what exists.
        _, indices, _, _ = await asyncio.gather(
            asyncio.to_thread(lookup_zip, "00000"),
            versions.create_version(
                es, options.names, report.version, options.shards, options.load_settings
            ),
            change_log.ensure_index(es, options.names),
            digest_store.ensure_index(es, options.names),
        )
        try:
            with batch_gc():
                stream = ActionStream(
                    sources, tables, indices, report, rejects,
                    progress=options.progress,
                )  # fmt: skip
                result = await bulk_index(
                    es, stream, chunk_size=options.chunk_size, concurrency=options.concurrency
                )
            if tables.plan_net is not None:
                # Its scratch file (most of the export's size) goes before the force merge,
                # which needs room for a copy of the search index.
                tables.plan_net.spill.close()
            errors = BulkErrors(rejects, options.max_bulk_errors)
            _account_failures(result, indices, report, errors)
            if errors.too_many:
                raise LoadError(
                    f"{errors.count} documents failed to index (allowed {errors.allowed});"
                    f" see {reject_path}"
                )
            # The served version's digests are read, and the new one's stored, beside the
            # refresh and the merge, which leave the indexer waiting and a core idle
            # (Elasticsearch merges on one thread).
            served = await versions.current_version(es, options.names)
            beside = (
                asyncio.create_task(read_served(es, options.names, served)),
                asyncio.create_task(
                    digest_store.write_parts(es, options.names, report.version, stream.digests)
                ),
            )
            for task in beside:
                task.add_done_callback(lambda done: done.cancelled() or done.exception())
            try:
                await _finish(es, indices, options, report, record)
                diff_started = time.monotonic()
                before, parts = await beside[0], await beside[1]
            finally:
                for task in beside:
                    task.cancel()  # a load that failed first no longer waits for them
            report.served_digests = before.read
            # What it changes, recorded before it is served and counted once it is published.
            changes = await ChangeLog.begin(es, options.names, "load")
            told = await record_difference(
                es,
                options.names,
                changes,
                before,
                report.version,
                sources.main.name,
                now(),
                stream.digests,
            )
            report.changes_recorded, report.changes_skipped = told.recorded, told.skipped
            report.changes_s = time.monotonic() - diff_started
            await versions.swap_aliases(es, options.names, report.version)
        except BaseException:
            # Never delete what the aliases reached (a swap that completed as we were cancelled).
            # If Elasticsearch is gone this fails too: the next load removes the orphans.
            with contextlib.suppress(Exception):
                if await versions.current_version(es, options.names) != report.version:
                    await versions.delete_indices(es, list(indices.values()))
            raise
    report.source_rejected = Counter(rejects.counts)
    report.reject_file = reject_path if rejects.written else None
    marks = await changes.commit(options.changes_retention_days)
    await digest_store.write_header(
        es, options.names, report.version, parts, marks["changesThrough"]
    )
    await publish(es, options.names, report.version, "load", marks)
    await versions.prune(es, options.names, keep=options.keep_versions)
    await digest_store.keep_only(es, options.names, await versions.list_versions(es, options.names))
    report.finish(time.monotonic() - started)
    return report


async def _finish(
    es: AsyncElasticsearch,
    indices: dict[IndexKind, str],
    options: LoadOptions,
    report: LoadReport,
    record: Mapping[str, Any],
) -> None:
    """The new version merged, its copies placed, its documents counted and verified, and
    marked complete (not served yet)."""
    await versions.finish_version(es, list(indices.values()), options.replicas, options.force_merge)
    try:
        copies = await wait_for_copies(es, list(indices.values()), options.replica_wait_s)
    except CopiesUnavailable as error:
        raise LoadError(str(error)) from None
    report.copies = copies.status
    report.copies_wait_s = copies.waited_s
    report.documents = await versions.count_documents(es, indices)
    _verify(report)
    await versions.mark_complete(es, list(indices.values()), report.version, record)


def _verify(report: LoadReport) -> None:
    wrong = {
        kind: (report.documents.get(kind, 0), expected)
        for kind, expected in report.expected.items()
        if report.documents.get(kind, 0) != expected - report.bulk_failed[kind]
    }
    if not report.accounted:
        wrong["nppes rows"] = (report.rows_read, report.indexed)
    if wrong:
        raise LoadError(f"document counts differ from rows read (indexed, expected): {wrong}")
