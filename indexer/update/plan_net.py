"""``provider-indexer update --plan-net DIR``: a newer export of a payer's Plan-Net directory
applied in place to the live version. What the newer export says replaces what the directory
of that name said before (``--plan-net-name``, default the directory's name): roles added or
removed, a practitioner leaving a network, languages and locations changed.

The providers it decides are those the export lists and those the directory added to before
(the search index's ``sources``). Each ends as one outcome: **added** (a provider only the
directory lists, new), **changed**, **removed** (the directory alone listed it and no longer
does), **unchanged** (nothing written, so applying the same export twice changes nothing). A
provider's documents are rebuilt from what was there before any directory added to it (kept
in its lookup document) with every directory's overlay, the newer one for this directory; its
coverage rows from this directory are replaced, other sources' rows kept; its in-network
periods are those of the rows it has then (indexer.update.plan_net_rebuild). Its scorecard
(core.scorecards) is counted again from the documents rebuilt. Everything becomes visible in one
refresh.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import orjson
from elasticsearch.helpers import async_scan

from core.change_log import Change
from core.change_records import accepting_changes, listed, provider_changes
from core.changes import CHANGED_AT, SearchPair, resources_gone, unstamped
from core.documents import CoverageDoc, Json
from core.index_contract import SEARCH_FIELDS as F
from core.index_contract import coverage_doc_id
from core.search_fields import with_derived_fields
from indexer.assembly.documents import ProviderDocuments
from indexer.assembly.scorecard import ListingTally, directory_facts, scorecard
from indexer.change_log import ChangeLog
from indexer.provenance import recorded_join_files
from indexer.sources.nucc import read_nucc
from indexer.sources.plan_net import PlanNetDirectory, read_plan_net
from indexer.update import indexed as current
from indexer.update.live_version import LiveVersion, visible_together
from indexer.update.networks import flag_networks, unflag_networks
from indexer.update.options import UpdateError, UpdateOptions, update_session
from indexer.update.plan_net_plans import replace_plans
from indexer.update.plan_net_rebuild import Rebuilder
from indexer.update.removals import record_removals
from indexer.update.report import UpdateReport
from indexer.update.scorecards import stored_scorecard, write_scorecard
from indexer.write.bulk import Action, Origin, bulk_index, chunked, delete_action, index_action

Doc = Json
# What an overlay changes in the search document of a provider the NPPES file lists (the
# fields made from its provider and locations follow: with_derived_fields).
_OVERLAY_FIELDS = (F.locations, F.provider, F.networks)


async def _listed_before(es: Any, index: str, source: str) -> set[str]:
    query = {"query": {"term": {F.sources: source}}, "_source": False}
    return {hit["_id"] async for hit in async_scan(es, index=index, query=query, size=5000)}


class _Applier:
    def __init__(
        self,
        live: LiveVersion,
        directory: PlanNetDirectory,
        report: UpdateReport,
        nucc: dict[str, Any],
        changes: ChangeLog,
    ) -> None:
        self._changes = changes
        self._told: list[Change] = []  # what a batch's coverage rows say of new patients
        self._indices = live.indices
        self._directory = directory
        self._source = directory.source
        self._rebuilder = Rebuilder(directory, nucc, report.scored_on)
        self.plans: set[tuple[int, str]] = set()  # (year, plan key) of the rows it holds
        self.stamped: list[SearchPair] = []  # search documents a batch rewrites or deletes
        self.tally = ListingTally(directory.source)  # its scorecard's provider checks
        self._report = report

    async def apply(self, es: Any, npis: Sequence[str]) -> None:
        indices = self._indices
        lookups, searches, coverage = await asyncio.gather(
            current.documents(es, indices["providers"], npis),
            current.documents(es, indices["search"], npis),
            current.coverage_rows(es, indices["coverage"], npis),
        )
        actions: list[Action] = []
        for npi in npis:
            lookup, search = lookups.get(npi), searches.get(npi)
            rows = coverage.get(npi, {})
            docs, nppes_listed = self._rebuilder.rebuild(npi, lookup, rows)
            origin = Origin(self._directory.source, 0, npi)
            mine = {i: r for i, r in rows.items() if r["source"] == self._source}
            new_rows = {
                coverage_doc_id(r["contractYear"], r["bidId"], npi, r["locationId"], r["source"]): r
                for r in (docs.coverage if docs else [])
                if r["source"] == self._source
            }
            rows_written = self._coverage_actions(mine, new_rows, origin)
            self._told += accepting_changes(mine, new_rows, self._source)
            actions += rows_written
            if docs is None:
                if lookup is not None:
                    actions += [self._delete("providers", npi, origin)]
                    actions += [self._delete("search", npi, origin)]
                    self.stamped.append((search, None))
                    self._report.outcomes["removed"] += 1
                continue
            if nppes_listed and search is not None:
                # Names and the other text come from the NPPES row, which this export lacks.
                fresh = current.as_indexed(docs.search)
                merged = {**search, **{f: fresh[f] for f in _OVERLAY_FIELDS}}
                docs.search = cast(Any, with_derived_fields(merged))
            self.tally.add(docs.provider, docs.locations)
            written = self._provider_actions(npi, lookup, search, docs, origin)
            actions += written
            # A changed accepting-new-patients or period changes a row, not the documents.
            changed = bool(written) or bool(rows_written)
            outcome = "added" if lookup is None else "changed" if changed else "unchanged"
            self._report.outcomes[outcome] += 1
        result = await bulk_index(es, actions, chunk_size=1000)
        if result.failed:
            raise UpdateError(
                f"{len(result.failed)} documents were refused ({result.failed[0].reason});"
                " run the update again"
            )
        at, stamped = self._report.changed_at, self.stamped
        for old, new in stamped:
            key = (new or old or {})[F.npi]
            self._told += provider_changes(key, listed(old), listed(new), self._source)
        await self._changes.record(self._told, at)
        self._told = []
        removed, present = resources_gone(stamped, at)
        self._report.removals += await record_removals(
            es, indices["removals"], removed.items(), present
        )
        stamped.clear()

    def _delete(self, kind: Any, doc_id: str, origin: Origin) -> Action:
        return delete_action(self._indices[kind], doc_id, origin)

    def _index(self, kind: Any, doc_id: str, doc: object, origin: Origin) -> Action:
        return index_action(self._indices[kind], doc_id, orjson.dumps(doc), origin)

    def _coverage_actions(
        self, old: dict[str, CoverageDoc], new: dict[str, CoverageDoc], origin: Origin
    ) -> list[Action]:
        self.plans.update((row["contractYear"], row["bidId"]) for row in new.values())
        actions = [self._delete("coverage", i, origin) for i in old if i not in new]
        actions += [
            self._index("coverage", i, row, origin)
            for i, row in new.items()
            if current.as_indexed(row) != old.get(i)
        ]
        return actions

    def _provider_actions(
        self,
        npi: str,
        lookup: Doc | None,
        search: Doc | None,
        docs: ProviderDocuments,
        origin: Origin,
    ) -> list[Action]:
        actions: list[Action] = []
        new_lookup = current.as_indexed(docs.lookup())
        new_search = unstamped(current.as_indexed(docs.search))
        if new_lookup != lookup:
            actions.append(self._index("providers", npi, new_lookup, origin))
        if search is None or current.stored_search(new_search) != current.stored_search(search):
            new_search[CHANGED_AT] = self._report.changed_at
            actions.append(self._index("search", npi, new_search, origin))
            self.stamped.append((search, new_search))
        return actions


async def update_plan_net(
    es: Any, path: Path, options: UpdateOptions, name: str | None = None
) -> UpdateReport:
    """Apply a newer Plan-Net export of a directory to the live version; returns the report."""
    async with update_session(es, "plan-net", path, options) as (live, report, rejects, _, changes):
        files = options.join_files or recorded_join_files(live.record.get("sources"))
        nucc = await asyncio.to_thread(read_nucc, files.nucc)
        directory = await asyncio.to_thread(read_plan_net, path, rejects.add, name)
        report.rows_read = sum(directory.read.values())
        report.resources = directory.counts()
        report.warnings = directory.warnings
        report.normalised = directory.normalised
        applier = _Applier(live, directory, report, nucc, changes)
        indices = live.indices
        async with visible_together(es, list(indices.values())):
            removals, flagged = await replace_plans(es, live, directory, report.changed_at)
            report.removals += removals
            before = await _listed_before(es, indices["search"], directory.source)
            for npis in chunked(sorted(before | set(directory.providers)), options.batch_rows):
                await applier.apply(es, npis)
            await flag_networks(es, indices["plans"], applier.plans, directory.source)
            await unflag_networks(
                es, indices["plans"], indices["coverage"], flagged - applier.plans, directory.source
            )
            stored = await stored_scorecard(es, indices["directories"], directory.source)
            facts = directory_facts(directory)
            card = scorecard(directory.name, facts, applier.tally, report.changed_at, stored)
            await write_scorecard(es, indices["directories"], card, stored)
    return report
