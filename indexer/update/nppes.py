"""``provider-indexer update --nppes FILE``: an NPPES incremental file (the weekly file CMS
publishes: same format, only the NPIs created, changed, deactivated or reactivated) applied in
place to the live version.

Each row ends as exactly one outcome, decided against what is indexed now:
- **stale**: its "Last Update Date" (a deactivation: its deactivation date) is older than the
  indexed provider's; nothing is written;
- **unchanged**: the documents it gives equal the indexed ones (or it deactivates an NPI that
  is not indexed); nothing is written, so ETags stay and applying a file twice changes nothing;
- **added** / **reactivated** (the NPI is not indexed; reactivated when the row carries an NPPES
  reactivation date), **changed**: both documents written, built exactly as ``load`` builds
  them, joined with the side files the version was built from (indexer.provenance) and the
  provider's networks as the coverage index holds them;
- **deactivated**: both documents deleted (the NPI answers 404, as after a full load of a file
  that deactivates it); when payers' directories list the NPI, their listing stays, as a load
  of the file would keep it: the provider only they list, flagged ``npi_deactivated`` (README
  "Trust"); a reactivation joins it to its NPPES record again;
- **rejected** with its reason, as ``load`` rejects rows, into the reject file.

A provider's two documents go in one bulk request; if Elasticsearch refuses one of them, the
other is put back as it was, so every provider is old or new, never half. Nothing becomes
visible before the end (indexer.update.live_version.visible_together). A deactivated NPI is
forgotten, as a full load forgets it: a later row for it is applied whatever its date.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import orjson

from core.change_log import Change
from core.change_records import Event, listed, provider_changes
from core.changes import CHANGED_AT, resources_gone
from core.confidence import Ages
from core.documents import Json
from core.geo import lookup_zip
from core.published_documents import Removal
from indexer.assembly.documents import Extras, build_documents, listed_documents
from indexer.assembly.npiset import NpiSet
from indexer.assembly.plan_net_stored import overlays_of
from indexer.change_log import ChangeLog
from indexer.provenance import JoinFiles, recorded_join_files
from indexer.sources.dac import DacTable, read_dac
from indexer.sources.hospitals import read_hospitals
from indexer.sources.nppes import Deactivated, NppesRecord, NppesRow, read_nppes
from indexer.sources.nucc import TaxonomyEntry, read_nucc
from indexer.sources.rejects import ignore_rejects
from indexer.update import indexed as current
from indexer.update.live_version import LiveVersion, visible_together
from indexer.update.options import UpdateError, UpdateOptions, update_session
from indexer.update.removals import record_removals
from indexer.update.report import UpdateReport
from indexer.update.scorecards import refresh_scorecards
from indexer.write.bulk import Action, Origin, bulk_index, chunked, delete_action, index_action
from indexer.write.bulk_errors import BulkErrors
from indexer.write.collector import batch_gc
from indexer.write.screen import Screen, each_npi_once

Doc = Json
_EVENTS: dict[str, Event] = {"deactivated": "deactivated", "reactivated": "reactivated"}


@dataclass(slots=True)
class _Write:
    """One provider's documents, as indexed now and as the row makes them (None: absent)."""

    outcome: str
    origin: Origin
    old: tuple[Doc | None, Doc | None]  # (lookup, search)
    new: tuple[Doc | None, Doc | None]


@dataclass(frozen=True)
class _Joins:
    nucc: dict[str, TaxonomyEntry]
    dac: DacTable


def _read_joins(files: JoinFiles) -> _Joins:
    lookup_zip("00000")  # the ZIP table builds here, in the thread, not on the first row
    hospitals = read_hospitals(files.hospitals) if files.hospitals else {}
    # The side files' own rejects were reported by the load that first read them.
    dac = read_dac(files.dac, hospitals, ignore_rejects) if files.dac else DacTable({}, {}, {})
    return _Joins(read_nucc(files.nucc), dac)


def _older(row_date: date | None, indexed: Doc) -> bool:
    last = indexed["lastUpdated"]
    return row_date is not None and last is not None and row_date.isoformat() < last


def _listing_directories(write: _Write) -> set[str]:
    """The payers' directories that list the provider, before or after the write."""
    return {
        source
        for lookup in (write.old[0], write.new[0])
        if lookup is not None and "planNet" in lookup
        for source in orjson.loads(lookup["planNet"])
    }


class _Applier:
    def __init__(
        self,
        live: LiveVersion,
        joins: _Joins,
        report: UpdateReport,
        errors: BulkErrors,
        changes: ChangeLog,
    ) -> None:
        self._changes = changes
        self._live = live
        self._joins = joins
        self._report = report
        self._errors = errors
        self._pair = (live.indices["providers"], live.indices["search"])  # as _Write holds them
        self._ages = Ages.on(report.scored_on)
        self.directories: set[str] = set()  # the payers' directories of the providers written

    def _record_write(
        self, row: NppesRecord, indexed: tuple[Doc | None, Doc | None], coverage: Any
    ) -> _Write | None:
        npi = row.npi
        dac = self._joins.dac
        # What Plan-Net directories said of it stays (its rows are in the coverage index).
        overlays = overlays_of(indexed[0].get("planNet")) if indexed[0] else {}
        extras = Extras(
            dac.rows.get(npi) or (),
            dac.languages.get(npi) or (),
            current.networks(coverage.get(npi, {}).values()),
            tuple(overlays.values()),
        )
        docs = build_documents(row, self._joins.nucc, self._ages, extras)
        new = (current.as_indexed(docs.lookup()), current.as_indexed(docs.search))
        stored = (new[0], current.stored_search(new[1]))
        if stored == (indexed[0], indexed[1] and current.stored_search(indexed[1])):
            return None
        new[1][CHANGED_AT] = self._report.changed_at
        in_nppes = indexed[0] is not None and indexed[0].get("base", "") is not None
        outcome = "changed" if in_nppes else "reactivated" if row.reactivated_on else "added"
        return _Write(outcome, Origin(self._report.file, row.row_number, npi), indexed, new)

    def _deactivation(
        self, row: Deactivated, indexed: tuple[Doc | None, Doc | None], coverage: Any
    ) -> _Write | None:
        """Its documents deleted; or, when payers' directories list the NPI, their listing
        kept as only they list it, flagged ``npi_deactivated`` (None: nothing to write)."""
        lookup = indexed[0]
        if lookup is None and indexed[1] is None:
            return None
        origin = Origin(self._report.file, row.row_number, row.npi)
        overlays = overlays_of(lookup.get("planNet")) if lookup else {}
        in_nppes = lookup is not None and lookup.get("base", "") is not None
        if in_nppes and _older(row.deactivated_on, lookup or {}):  # a newer NPPES record
            return _Write("stale", origin, indexed, indexed)
        if not overlays:
            return _Write("deactivated", origin, indexed, (None, None))
        networks = current.networks(coverage.get(row.npi, {}).values())
        ordered = [overlays[source] for source in sorted(overlays)]
        docs = listed_documents(ordered, self._joins.nucc, networks, self._ages, True)
        new = (current.as_indexed(docs.lookup()), current.as_indexed(docs.search))
        if (new[0], current.stored_search(new[1])) == (
            lookup,
            indexed[1] and current.stored_search(indexed[1]),
        ):
            return None
        new[1][CHANGED_AT] = self._report.changed_at
        return _Write("deactivated", origin, indexed, new)

    async def apply(self, accepted: list[NppesRow], es: Any) -> None:
        npis = [row.npi for row in accepted]
        indices = self._live.indices
        lookups, searches, coverage = await asyncio.gather(
            current.documents(es, indices["providers"], npis),
            current.documents(es, indices["search"], npis),
            current.coverage_rows(es, indices["coverage"], npis),
        )
        writes: list[_Write] = []
        outcomes = self._report.outcomes
        for row in accepted:
            indexed = (lookups.get(row.npi), searches.get(row.npi))
            if isinstance(row, Deactivated):
                write = self._deactivation(row, indexed, coverage)
                if write is None:
                    outcomes["unchanged"] += 1
                elif write.outcome == "stale":
                    outcomes["stale"] += 1
                else:
                    writes.append(write)
                continue
            if indexed[0] is not None and _older(row.last_update, indexed[0]):
                outcomes["stale"] += 1
                continue
            write = self._record_write(row, indexed, coverage)
            if write is None:
                outcomes["unchanged"] += 1
            else:
                writes.append(write)
        await self._write(es, writes)

    def _actions(self, writes: Iterable[_Write], state: str) -> list[Action]:
        lines: list[Action] = []
        for write in writes:
            docs = write.new if state == "new" else write.old
            npi, origin = write.origin.npi, write.origin
            for index, doc in zip(self._pair, docs, strict=True):
                if doc is None:
                    lines.append(delete_action(index, npi, origin))
                else:
                    lines.append(index_action(index, npi, orjson.dumps(doc), origin))
        return lines

    async def _write(self, es: Any, writes: list[_Write]) -> None:
        # Removal records first: once the providers are written, a rerun of a failed update
        # finds them unchanged and could not tell what they were served as before.
        removals = self._live.indices["removals"]
        planned, _ = self._gone(writes)
        await record_removals(es, removals, planned.items())
        # Two actions per provider and an even chunk size: a provider's pair shares a request.
        result = await bulk_index(es, self._actions(writes, "new"), chunk_size=1000)
        failed = {f.origin.npi: f for f in result.failed if f.origin is not None}
        # A refused delete of a document that was already gone is no failure.
        failed = {npi: f for npi, f in failed.items() if f.status != 404}
        undo = [write for write in writes if write.origin.npi in failed]
        if undo:
            restored = await bulk_index(es, self._actions(undo, "old"), chunk_size=1000)
            if restored.failed:
                raise UpdateError(
                    f"{len(restored.failed)} documents could not be put back after a failed"
                    " write; run the update again"
                )
        for write in writes:
            failure = failed.get(write.origin.npi)
            if failure is None:
                self.directories.update(_listing_directories(write))
                self._report.outcomes[write.outcome] += 1
                self._report.removed += write.new[0] is None
                continue
            self._errors.refused(write.origin, failure.reason)
        done = [write for write in writes if write.origin.npi not in failed]
        await self._changes.record(self._told(done), self._report.changed_at)
        removed, present = self._gone(done)
        self._report.removals += len(removed)
        undone = planned.keys() - removed.keys()  # the records of writes put back
        await record_removals(es, removals, (), [*present, *undone])

    def _told(self, written: list[_Write]) -> list[Change]:
        """What the feed tells of the providers written (core.change_records)."""
        told: list[Change] = []
        for write in written:
            event = _EVENTS.get(write.outcome)
            old, new = listed(write.old[1]), listed(write.new[1])
            told += provider_changes(write.origin.npi, old, new, self._report.file, event)
        return told

    def _gone(self, written: list[_Write]) -> tuple[dict[str, Removal], list[str]]:
        """The FHIR resources a provider was served as and is no more (all of them when it is
        deactivated, a location it lost), and those it is served as again."""
        pairs = [(write.old[1], write.new[1]) for write in written]
        return resources_gone(pairs, self._report.changed_at)


async def update_nppes(es: Any, path: Path, options: UpdateOptions) -> UpdateReport:
    """Apply an NPPES incremental file to the live version; returns the report."""
    async with update_session(es, "nppes", path, options) as (
        live,
        report,
        rejects,
        errors,
        changes,
    ):
        files = options.join_files or recorded_join_files(live.record.get("sources"))
        joins = await asyncio.to_thread(_read_joins, files)
        applier = _Applier(live, joins, report, errors, changes)
        # As in a load: few cycle collections (indexer.write.collector.batch_gc: they cost 10x the
        # parsing of the indexed documents), after the tables exist.
        with batch_gc():
            written = [live.indices[kind] for kind in ("providers", "search", "removals")]
            async with visible_together(es, written):
                screen = Screen[NppesRow](report, rejects, report.file)
                rows = read_nppes(path, screen.reader_rejected)
                for batch in chunked(each_npi_once(screen, rows, NpiSet()), options.batch_rows):
                    await applier.apply(batch, es)
        # Their scorecards count what the update changed (a deactivation a payer lists).
        if applier.directories:
            await refresh_scorecards(es, live.indices, applier.directories, report.changed_at)
    return report
