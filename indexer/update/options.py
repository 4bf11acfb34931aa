"""What every ``provider-indexer update`` takes and shares: its options, the session around it
(the job lock, the live version, the reject file, the record in ``status``), how it fails."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from elasticsearch import AsyncElasticsearch

from core import changes
from core.change_log import DEFAULT_RETENTION_DAYS
from core.index_contract import IndexNames
from indexer import digest_store
from indexer.change_log import ChangeLog
from indexer.lock import job_lock
from indexer.provenance import JoinFiles
from indexer.publication import publish
from indexer.update.live_version import LiveVersion, live_version, record_update
from indexer.update.report import UpdateKind, UpdateReport
from indexer.write.bulk_errors import BulkErrors
from indexer.write.rejects import Rejects


@dataclass(frozen=True)
class UpdateOptions:
    names: IndexNames
    join_files: JoinFiles | None = None  # default: those the live version was built from
    reject_file: Path | None = None  # default: rejects/update-<kind>-<time>.csv
    batch_rows: int = 2000  # rows decided per round trip (read what is indexed, write)
    max_bulk_errors: int = 0
    changes_retention_days: int = DEFAULT_RETENTION_DAYS  # indexer.change_log
    scored_on: date | None = None  # the day confidence is scored for; default the update's


class UpdateError(RuntimeError):
    """The update did not complete; every provider is as it was or as the file makes it."""


def reject_path(options: UpdateOptions, report: UpdateReport) -> Path:
    if options.reject_file is not None:
        return options.reject_file
    return Path("rejects") / f"update-{report.kind}-{report.version}-{Path(report.file).stem}.csv"


@contextlib.asynccontextmanager
async def update_session(
    es: AsyncElasticsearch, kind: UpdateKind, path: Path, options: UpdateOptions
) -> AsyncIterator[tuple[LiveVersion, UpdateReport, Rejects, BulkErrors, ChangeLog]]:
    """The lock held, the live version found, the reject file open, the change log begun; on
    success the update is recorded on the version and its changes committed, and too many
    refused rows (each one refused document, recorded in the ``BulkErrors``) raise
    UpdateError."""
    started = time.monotonic()
    report = UpdateReport(kind, path.name)
    async with job_lock(es, options.names, "update", path.name) as previous:
        report.took_over_from = previous.describe() if previous else None
        # Stamped once the lock is ours: no earlier than its ``started``, which an export begun
        # meanwhile takes as its transactionTime (service.fhir.export.job.transaction_time).
        report.changed_at = changes.now()
        report.scored_on = options.scored_on or date.fromisoformat(report.changed_at[:10])
        live = await live_version(es, options.names)
        report.version = live.version
        log = await ChangeLog.begin(es, options.names, "update")
        # Until it commits, what it writes may not all be recorded (indexer.digest_store).
        digests_kept = await digest_store.update_begins(es, options.names, live.version)
        target = reject_path(options, report)
        with Rejects(target) as rejects:
            errors = BulkErrors(rejects, options.max_bulk_errors, report.rejected)
            yield live, report, rejects, errors, log
        report.reject_file = target if rejects.written else None
        report.finish(time.monotonic() - started)
        await record_update(es, live, report.history_entry())
        marks = await log.commit(options.changes_retention_days)
        await digest_store.update_ends(es, options.names, live.version, digests_kept)
        await publish(es, options.names, live.version, "update", marks)
    if errors.too_many:
        raise UpdateError(
            f"{errors.count} rows failed to index (the documents they name are"
            f" as they were); see {report.reject_file}"
        )
