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
periods are those of the rows it has then. Everything becomes visible in one refresh.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any, cast

import orjson
from elasticsearch.helpers import async_scan

from core.changes import CHANGED_AT, SearchPair, resources_gone, unstamped
from core.confidence import Ages, score_all
from core.documents import CoverageDoc, Json, Location, Provider
from core.index_contract import SEARCH_FIELDS as F
from core.index_contract import coverage_doc_id
from core.lookup_answers import stored_locations, stored_provider
from core.search_fields import with_derived_fields
from indexer.assembly import plan_net, plan_net_stored
from indexer.assembly.documents import (
    ProviderDocuments,
    overlaid,
    search_document,
    stored_base,
)
from indexer.assembly.plan_net import Overlay, PlanLink
from indexer.provenance import recorded_join_files
from indexer.sources.nucc import read_nucc
from indexer.sources.plan_net import PlanNetDirectory, read_plan_net
from indexer.update import indexed as current
from indexer.update.live_version import LiveVersion, visible_together
from indexer.update.networks import flag_networks, unflag_networks
from indexer.update.options import UpdateError, UpdateOptions, update_session
from indexer.update.plan_net_plans import replace_plans
from indexer.update.removals import record_removals
from indexer.update.report import UpdateReport
from indexer.write.bulk import Action, Origin, bulk_index, chunked, delete_action, index_action

Doc = Json
# What an overlay changes in the search document of a provider the NPPES file lists (the
# fields made from its provider and locations follow: with_derived_fields).
_OVERLAY_FIELDS = (F.locations, F.provider, F.networks)


async def _listed_before(es: Any, index: str, source: str) -> set[str]:
    query = {"query": {"term": {F.sources: source}}, "_source": False}
    return {hit["_id"] async for hit in async_scan(es, index=index, query=query, size=5000)}


def _base(lookup: Doc) -> tuple[Provider, list[Location], list[str]] | None:
    """The provider before any directory added to it; None when directories alone list it."""
    if "planNet" not in lookup:
        return stored_provider(cast(Any, lookup)), stored_locations(cast(Any, lookup)), []
    if lookup.get("base") is None:
        return None
    fields = orjson.loads(lookup["base"])
    return fields["provider"], fields["locations"], fields["otherNames"]


def _deactivated(lookup: Doc | None) -> bool:
    """Whether NPPES had deactivated the NPI of a provider only directories list, as its
    documents said (the NPPES file, and its weekly updates, decide it)."""
    notes = stored_provider(cast(Any, lookup)).get("dataQuality", ()) if lookup else ()
    return any(note["code"] == "npi_deactivated" for note in notes)


class _Applier:
    def __init__(
        self,
        live: LiveVersion,
        directory: PlanNetDirectory,
        report: UpdateReport,
        nucc: dict[str, Any],
    ) -> None:
        self._indices = live.indices
        self._directory = directory
        self._source = directory.source
        self._links: dict[str, list[PlanLink]] = plan_net.plan_links(directory)
        self.plans: set[tuple[int, str]] = set()  # (year, plan key) of the rows it holds
        self.stamped: list[SearchPair] = []  # search documents a batch rewrites or deletes
        self._report = report
        self._nucc = nucc
        self._ages = Ages.on(date.fromisoformat(report.changed_at[:10]))

    def _overlays(self, lookup: Doc | None, npi: str) -> list[Overlay]:
        kept = plan_net_stored.overlays_of(lookup.get("planNet") if lookup else None)
        kept.pop(self._source, None)
        listed = self._directory.providers.get(npi)
        if listed is not None:
            kept[self._source] = Overlay(self._source, listed, self._links)
        return list(kept.values())

    def _rebuild(
        self, npi: str, lookup: Doc | None, rows: dict[str, CoverageDoc]
    ) -> tuple[ProviderDocuments | None, bool]:
        """The provider's documents now (None: nobody lists it any more), and whether the
        NPPES file lists it."""
        overlays = self._overlays(lookup, npi)
        base = _base(lookup) if lookup else None
        networks = current.networks(r for r in rows.values() if r["source"] != self._source)
        if base is not None:
            provider, locations, other_names = base
            if not overlays:
                score_all(provider, locations, self._ages)
                search = search_document(provider, locations, tuple(other_names), networks)
                return ProviderDocuments(provider, locations, search), True
            stored = _stored_base(lookup)
            docs = overlaid(
                provider, locations, other_names, networks, overlays, stored, self._ages
            )
            return docs, True
        if not overlays:
            return None, False
        listed = next((o for o in overlays if o.source == self._source), overlays[0])
        provider = plan_net.listed_provider(
            listed.provider, self._nucc, listed.source, _deactivated(lookup)
        )
        return overlaid(provider, [], (), networks, overlays, None, self._ages), False

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
            docs, nppes_listed = self._rebuild(npi, lookup, rows)
            origin = Origin(self._directory.source, 0, npi)
            mine = {i: r for i, r in rows.items() if r["source"] == self._source}
            new_rows = {
                coverage_doc_id(r["contractYear"], r["bidId"], npi, r["locationId"], r["source"]): r
                for r in (docs.coverage if docs else [])
                if r["source"] == self._source
            }
            rows_written = self._coverage_actions(mine, new_rows, origin)
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


def _stored_base(lookup: Doc | None) -> str | None:
    """The base of a provider NPPES lists, as the lookup document keeps it under an overlay."""
    if lookup is None:
        return None
    if "planNet" in lookup:
        return cast(str | None, lookup.get("base"))
    provider, locations = stored_provider(cast(Any, lookup)), stored_locations(cast(Any, lookup))
    return stored_base(provider, locations, [])


async def update_plan_net(
    es: Any, path: Path, options: UpdateOptions, name: str | None = None
) -> UpdateReport:
    """Apply a newer Plan-Net export of a directory to the live version; returns the report."""
    async with update_session(es, "plan-net", path, options) as (live, report, rejects, _):
        files = options.join_files or recorded_join_files(live.record.get("sources"))
        nucc = await asyncio.to_thread(read_nucc, files.nucc)
        directory = await asyncio.to_thread(read_plan_net, path, rejects.add, name)
        report.rows_read = sum(directory.read.values())
        report.resources = directory.counts()
        report.warnings = directory.warnings
        report.normalised = directory.normalised
        applier = _Applier(live, directory, report, nucc)
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
    return report
