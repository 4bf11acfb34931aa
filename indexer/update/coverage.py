"""``provider-indexer update --coverage FILE``: participation rows added, changed or removed in
the live version, in the coverage CSV format plus an ``action`` column (indexer.sources.coverage:
``upsert`` or empty, ``delete``).

Each row ends as one outcome: **added** (no row with its key yet), **changed** (a row with its
key differs, e.g. a new termination date), **removed** (a ``delete`` of an existing row),
**unchanged** (equal, or a ``delete`` of a row that is not there), or **rejected** with its
reason (as ``load`` rejects rows; a key twice in the file: the first wins).

Then the search document of every provider the file names gets the in-network periods of the
coverage it now holds, as ``load`` writes them (core.network), so the in-network filter and
coverage answers agree; both become visible in one refresh
(indexer.update.live_version.visible_together). Run again after a failure, it completes what
is missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import orjson

from core.change_records import accepting_changes, listed, provider_changes
from core.changes import CHANGED_AT, SearchPair, resources_gone
from core.documents import CoverageDoc
from core.index_contract import SEARCH_FIELDS
from core.network import periods_of
from core.search_fields import with_derived_fields
from indexer.change_log import ChangeLog
from indexer.sources.coverage import CoverageDelete, CoverageRow, read_coverage
from indexer.update import indexed as current
from indexer.update.live_version import LiveVersion, visible_together
from indexer.update.networks import flag_networks
from indexer.update.options import UpdateError, UpdateOptions, update_session
from indexer.update.removals import record_removals
from indexer.update.report import UpdateReport
from indexer.write.bulk import Action, Origin, bulk_index, chunked, delete_action, index_action
from indexer.write.bulk_errors import BulkErrors
from indexer.write.rejects import Rejects
from indexer.write.screen import KeySet, Screen

Item = CoverageRow | CoverageDelete


class _Applier:
    def __init__(
        self, live: LiveVersion, report: UpdateReport, errors: BulkErrors, changes: ChangeLog
    ) -> None:
        self._changes = changes
        self._index = live.indices["coverage"]
        self._search = live.indices["search"]
        self._removals = live.indices["removals"]
        self._report = report
        self._errors = errors
        self.plans: set[tuple[int, str]] = set()  # (year, plan key) of the rows written
        # What this file wrote, by NPI and row id (None: removed), over the rows as last refreshed.
        self.written: dict[str, dict[str, CoverageDoc | None]] = {}

    async def apply(self, accepted: list[Item], es: Any) -> None:
        for item in accepted:
            self.written.setdefault(_npi(item), {})
        indexed = await current.documents(es, self._index, [item.doc_id for item in accepted])
        outcomes = self._report.outcomes
        planned: list[tuple[Action, str, CoverageRow | CoverageDelete]] = []
        kept: dict[str, CoverageDoc] = {}  # the rows rewritten, as they were
        for item in accepted:
            old = indexed.get(item.doc_id)
            origin = Origin(self._report.file, item.row_number, _npi(item))
            if isinstance(item, CoverageDelete):
                if old is None:
                    outcomes["unchanged"] += 1
                    continue
                planned.append((delete_action(self._index, item.doc_id, origin), "removed", item))
                continue
            source = orjson.dumps(item.doc)
            if old == orjson.loads(source):
                outcomes["unchanged"] += 1
                continue
            written = index_action(self._index, item.doc_id, source, origin)
            if old is not None:
                kept[item.doc_id] = cast(CoverageDoc, old)
            planned.append((written, "added" if old is None else "changed", item))
        result = await bulk_index(es, [action for action, _, _ in planned])
        failed = {failure.doc_id: failure for failure in result.failed}
        rewritten: dict[str, CoverageDoc] = {}
        for (_, _, origin), outcome, item in planned:
            failure = failed.get(item.doc_id)
            if failure is not None:
                self._errors.refused(origin, failure.reason)
                continue
            outcomes[outcome] += 1
            doc = item.doc if isinstance(item, CoverageRow) else None
            if doc is not None:
                self.plans.add((doc["contractYear"], doc["bidId"]))
                rewritten[item.doc_id] = doc
            self.written[origin.npi][item.doc_id] = doc
        told = accepting_changes(kept, rewritten, self._report.file)
        await self._changes.record(told, self._report.changed_at)

    async def rewrite_networks(self, es: Any, batch: int) -> None:
        """The search documents of the providers named, with the networks they are in now."""
        for npis in chunked(sorted(self.written), batch):
            refreshed = await current.coverage_rows(es, self._index, npis)
            searched = await current.documents(es, self._search, npis)
            actions: list[Action] = []
            rewritten: list[SearchPair] = []
            npis_rewritten: list[str] = []
            for npi in npis:
                if npi not in searched:
                    continue  # coverage of an NPI without a provider (as in a load)
                rows = {**refreshed.get(npi, {}), **self.written[npi]}
                networks = periods_of(current.networks([d for d in rows.values() if d]))
                stored = searched[npi]
                if stored.get(SEARCH_FIELDS.networks, []) != networks:
                    # Written whole: a partial update would drop the terms the source lacks.
                    changed = {
                        SEARCH_FIELDS.networks: networks,
                        CHANGED_AT: self._report.changed_at,
                    }
                    body = orjson.dumps(with_derived_fields({**stored, **changed}))
                    origin = Origin(self._report.file, 0, npi)
                    actions.append(index_action(self._search, npi, body, origin))
                    rewritten.append((stored, {**stored, **changed}))
                    npis_rewritten.append(npi)
            result = await bulk_index(es, actions)
            if result.failed:
                raise UpdateError(
                    f"coverage rows written, but the networks of {len(result.failed)} providers"
                    f" in search were not ({result.failed[0].reason}); run the update again"
                )
            self._report.search_rewritten += len(actions)
            told = [
                change
                for npi, (old, new) in zip(npis_rewritten, rewritten, strict=True)
                for change in provider_changes(npi, listed(old), listed(new), self._report.file)
            ]
            await self._changes.record(told, self._report.changed_at)
            # A role in a network it left, its one role once in one, an affiliation: gone.
            removed, present = resources_gone(rewritten, self._report.changed_at)
            self._report.removals += await record_removals(
                es, self._removals, removed.items(), present
            )


def _npi(item: CoverageRow | CoverageDelete) -> str:
    return item.doc["npi"] if isinstance(item, CoverageRow) else item.npi


def _doc_id(item: CoverageRow | CoverageDelete) -> str:
    return item.doc_id


def _where(item: CoverageRow | CoverageDelete) -> tuple[int, str]:
    return item.row_number, _npi(item)


def _accepted(path: Path, report: UpdateReport, rejects: Rejects) -> Iterator[Item]:
    """The file's usable rows, every row counted; a key twice: the first wins."""
    screen = Screen[Item](report, rejects, report.file)
    rows = read_coverage(path, screen.reader_rejected)
    return screen.accepted(rows, seen=KeySet(), key=_doc_id, repeat="duplicate", where=_where)


async def update_coverage(es: Any, path: Path, options: UpdateOptions) -> UpdateReport:
    """Apply a coverage delta file to the live version; returns the report."""
    async with update_session(es, "coverage", path, options) as (
        live,
        report,
        rejects,
        errors,
        changes,
    ):
        applier = _Applier(live, report, errors, changes)
        written = [live.indices[kind] for kind in ("coverage", "search", "plans", "removals")]
        async with visible_together(es, written):
            for batch in chunked(_accepted(path, report, rejects), options.batch_rows):
                await applier.apply(batch, es)
            await applier.rewrite_networks(es, options.batch_rows)
            await flag_networks(es, live.indices["plans"], applier.plans, report.file)
    return report
