"""The stream of bulk actions of one load: coverage, then every NPPES row joined with the
Doctors & Clinicians table and the provider's plan networks, then the plans (each knowing
whether any row names someone in it).

Side tables (NUCC, hospitals, DAC, plans) are read into memory first; the coverage file is
streamed once, building the NPI -> networks map as its documents go out, so it is complete
before the NPPES file (by far the largest) streams past it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orjson import dumps

from core.changes import CHANGED_AT, instant
from core.confidence import Ages
from core.documents import Plan
from core.index_contract import PLAN_FIELDS, IndexKind, coverage_doc_id, version_started
from core.network import PeriodKey, period_key
from core.npi import is_valid_npi
from core.plans import plan_doc_id_of, plan_key_of
from core.search_fields import stamp_length, stamped_digest
from indexer.assembly import plan_net
from indexer.assembly.documents import (
    NO_EXTRAS,
    Extras,
    ProviderDocuments,
    build_documents,
    listed_documents,
)
from indexer.assembly.npiset import NpiSet
from indexer.assembly.plan_net import Overlay
from indexer.assembly.plan_net_published import published_documents
from indexer.assembly.scorecard import ListingTally, directory_facts, scorecard
from indexer.digests import Digests
from indexer.load.progress import LoadProgress
from indexer.load.report import LoadReport
from indexer.sources.coverage import CoverageDelete, CoverageRow, read_coverage
from indexer.sources.csvfiles import ReadPosition
from indexer.sources.dac import DacTable
from indexer.sources.discovery import SourceFiles
from indexer.sources.nppes import Deactivated, NppesRecord, read_nppes
from indexer.sources.nucc import TaxonomyEntry
from indexer.sources.plan_net import PlanNetDirectory
from indexer.write.bulk import Action, Origin, action_lines, index_action
from indexer.write.rejects import Rejects
from indexer.write.screen import FileTally, Screen, each_npi_once


@dataclass(frozen=True)
class SideTables:
    nucc: dict[str, TaxonomyEntry]
    dac: DacTable
    plans: Sequence[Plan]
    plan_net: PlanNetDirectory | None = None


class ActionStream:
    def __init__(
        self,
        sources: SourceFiles,
        tables: SideTables,
        indices: dict[IndexKind, str],
        report: LoadReport,
        rejects: Rejects,
        *,
        progress: bool = False,  # a progress bar (a terminal); else a log line now and then
    ) -> None:
        self._sources = sources
        self._tables = tables
        self._indices = indices
        self._report = report
        self._rejects = rejects
        self._progress = progress
        self._networks: dict[int, tuple[PeriodKey, ...]] = {}
        self._with_rows: set[tuple[int, str]] = set()  # (year, plan key) some row names
        self._coverage_npis = NpiSet()
        # The providers' two lines, made per row: their heads built once (the hot loop).
        self._provider_line = action_lines("index", indices["providers"])
        self._search_line = action_lines("index", indices["search"])
        # Every document this load writes changed at the load's start (core.changes), and its
        # confidence is scored for the report's day.
        self._changed_at = instant(version_started(report.version))
        self._stamp = stamp_length(self._changed_at)
        self._ages = Ages.on(report.scoring_day())
        # The NPIs the NPPES file deactivated, which a directory may still list.
        self._deactivated = NpiSet() if tables.plan_net is not None else None
        directory = tables.plan_net
        self._links = plan_net.plan_links(directory) if directory else {}
        # The directory's NPIs not joined to an NPPES row yet: most NPPES rows are asked of
        # this bitmap, not of the directory's spill on disk. Only NPIs that can have been issued
        # are joined: a wrong check digit or another key is served as the directory gives it.
        self._not_joined = NpiSet(filter(is_valid_npi, directory.providers if directory else ()))
        # Its scorecard, counted from the documents of the providers it lists (no work without).
        self._tally = ListingTally(directory.source) if directory else None
        # What each search document serves, for the change feed (indexer.change_diff).
        self.digests = Digests()

    def __iter__(self) -> Iterator[Action]:
        yield from self._coverage()
        if self._sources.nppes is not None:
            yield from self._providers(self._sources.nppes)
        yield from self._listed_only()
        yield from self._plans()  # each says whether rows name anyone in it
        yield from self._scorecard()  # once every provider the directory lists is built

    def _action(self, kind: IndexKind, doc_id: str, doc: Any, origin: Origin) -> Action:
        self._report.expected[kind] += 1
        return index_action(self._indices[kind], doc_id, dumps(doc), origin)

    def _plans(self) -> Iterator[Action]:
        source = self._sources.plans.name if self._sources.plans else "plans"
        seen: set[str] = set()
        directory = self._tables.plan_net
        listed = plan_net.plan_documents(directory) if directory else []
        for plan in [*self._tables.plans, *listed]:
            doc_id = plan_doc_id_of(plan)
            if doc_id in seen:  # the Plan Finder's record of a bid id wins
                continue
            seen.add(doc_id)
            key = (plan["contractYear"], plan_key_of(plan))
            flagged = {
                **plan,
                PLAN_FIELDS.networkRows: key in self._with_rows,
                CHANGED_AT: self._changed_at,
            }
            yield self._action("plans", doc_id, flagged, Origin(source, 0, ""))
        for doc_id, published in published_documents(directory) if directory else []:
            published[CHANGED_AT] = self._changed_at
            yield self._action("plans", doc_id, published, Origin(published["source"], 0, ""))

    def _scorecard(self) -> Iterator[Action]:
        directory, tally = self._tables.plan_net, self._tally
        if directory is None or tally is None:
            return
        facts = directory_facts(directory)  # before the load closes its scratch file
        card = scorecard(directory.name, facts, tally, self._changed_at, None)
        yield self._action("directories", directory.source, card, Origin(directory.source, 0, ""))

    def _overlay(self, npi: str) -> Overlay | None:
        directory = self._tables.plan_net
        if directory is None or not self._not_joined.discard(npi):
            return None
        return Overlay(directory.source, directory.providers[npi], self._links)

    def _documents(self, docs: ProviderDocuments, origin: Origin) -> Iterator[Action]:
        npi = origin.npi
        docs.search[CHANGED_AT] = self._changed_at
        search = dumps(docs.search)
        self.digests.add(docs.search["npi"], stamped_digest(search, self._stamp))
        yield self._provider_line(npi), dumps(docs.lookup()), origin
        yield self._search_line(npi), search, origin
        if self._tally is not None:
            self._tally.add(docs.provider, docs.locations)
        for row in docs.coverage:
            self._with_rows.add((row["contractYear"], row["bidId"]))
            doc_id = coverage_doc_id(
                row["contractYear"], row["bidId"], npi, row["locationId"], row["source"]
            )
            self._report.plan_net_coverage += 1
            yield self._action("coverage", doc_id, row, origin)
        self._report.locations += len(docs.locations)
        for location in docs.locations:
            if location["geocodePrecision"] is None:
                self._report.not_geocoded += 1

    def _listed_only(self) -> Iterator[Action]:
        """The providers a Plan-Net directory lists and the NPPES file does not."""
        directory = self._tables.plan_net
        if directory is None:
            return
        count = 0
        for npi in directory.providers:
            if is_valid_npi(npi) and not self._not_joined.discard(npi):
                continue  # an NPPES row had it
            overlay = Overlay(directory.source, directory.providers[npi], self._links)
            deactivated = is_valid_npi(npi) and npi in (self._deactivated or ())
            networks = self._networks.get(int(npi), ()) if npi.isdigit() else ()
            nucc = self._tables.nucc
            docs = listed_documents([overlay], nucc, networks, self._ages, deactivated)
            count += 1
            yield from self._documents(docs, Origin(directory.source, 0, npi))
        self._report.plan_net_only = count
        self._report.expected.update(providers=count, search=count)

    def _coverage(self) -> Iterator[Action]:
        shared: dict[tuple[PeriodKey, ...], tuple[PeriodKey, ...]] = {}
        # Duplicates are found here, not by a 409 from a "create": a bulk request retried after
        # a dropped connection would meet its own documents and look like duplicates.
        seen: set[str] = set()
        for path in self._sources.coverage:
            rows = FileTally()
            screen = Screen[CoverageRow | CoverageDelete](rows, self._rejects, path.name)
            for item in read_coverage(path, screen.reader_rejected):
                rows.rows_read += 1
                if isinstance(item, CoverageDelete):
                    screen.reject(item.row_number, item.npi, "delete_in_load")
                    continue
                if item.doc_id in seen:
                    screen.reject(item.row_number, item.doc["npi"], "duplicate")
                    continue
                seen.add(item.doc_id)
                yield self._coverage_action(item, path.name, shared)
            self._report.source_rows[path.name] = rows.rows_read

    def _coverage_action(
        self,
        item: CoverageRow,
        source: str,
        shared: dict[tuple[PeriodKey, ...], tuple[PeriodKey, ...]],
    ) -> Action:
        doc = item.doc
        npi = doc["npi"]
        self._with_rows.add((doc["contractYear"], doc["bidId"]))
        self._coverage_npis.add(npi)
        key = period_key(doc)
        if key is not None:
            known = self._networks.get(int(npi), ())
            if key not in known:
                keys = (*known, key)
                self._networks[int(npi)] = shared.setdefault(keys, keys)
        origin = Origin(source, item.row_number, npi)
        return self._action("coverage", item.doc_id, doc, origin)

    def _providers(self, path: Path) -> Iterator[Action]:
        # The hot loop of a load (millions of rows): everything it touches is a local.
        name = path.name
        report, rejects, nucc = self._report, self._rejects, self._tables.nucc
        dac_rows, languages = self._tables.dac.rows.get, self._tables.dac.languages.get
        networks, overlay = self._networks.get, self._overlay
        provider_line, search_line = self._provider_line, self._search_line
        changed_at, ages, deactivated = self._changed_at, self._ages, self._deactivated
        stamp = self._stamp
        digested = self.digests.add
        seen = NpiSet()
        providers = 0
        plan_net_npis = self._tables.plan_net is not None
        position = ReadPosition()
        progress = LoadProgress(path, position, bar=self._progress)
        screen = Screen[NppesRecord | Deactivated](report, rejects, name)
        rows = each_npi_once(screen, read_nppes(path, screen.reader_rejected, position), seen)
        for row in rows:
            progress.rows(report.rows_read)
            if isinstance(row, Deactivated):
                report.deactivated += 1
                if deactivated is not None:
                    deactivated.add(row.npi)
                continue
            npi = row.npi
            dac, spoken, in_network = dac_rows(npi), languages(npi), networks(int(npi))
            listed = overlay(npi) if plan_net_npis else None
            extras = (
                Extras(dac or (), spoken or (), in_network or (), (listed,) if listed else ())
                if dac or spoken or in_network or listed
                else NO_EXTRAS
            )
            docs = build_documents(row, nucc, ages, extras)
            origin = Origin(name, row.row_number, npi)
            providers += 1
            if listed is not None:
                report.plan_net_joined += 1
                yield from self._documents(docs, origin)
                continue
            docs.search[CHANGED_AT] = changed_at  # last: the digest is of the bytes before it
            search = dumps(docs.search)
            digested(docs.search["npi"], stamped_digest(search, stamp))
            yield provider_line(npi), dumps(docs.lookup()), origin
            yield search_line(npi), search, origin
            for location in docs.locations:
                if location["geocodePrecision"] is None:
                    report.not_geocoded += 1
            report.locations += len(docs.locations)
        progress.close()
        report.expected.update(providers=providers, search=providers)
        report.source_rows[path.name] = report.rows_read
        report.dac_npis_not_in_nppes = sum(npi not in seen for npi in self._tables.dac.rows)
        report.coverage_npis_not_in_nppes = self._coverage_npis.count_missing_from(seen)
