"""``update --coverage``: delta files of the sample's coverage rows (upsert, delete) applied in
place to the live version; each outcome checked against the coverage API, the in-network search
filter and the stored documents. Rows and expectations come from the sample's coverage file read
here (tests.source_rows), never from the indexer."""

from __future__ import annotations

import asyncio
import csv
import dataclasses
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from elasticsearch import AsyncElasticsearch

import tests.conftest as shared
from core.index_contract import IndexNames
from indexer.load.run import LoadOptions, LoadReport, SourceFiles, load
from indexer.update.coverage import update_coverage
from indexer.update.live_version import live_version
from indexer.update.options import UpdateOptions
from indexer.update.report import UpdateReport
from tests.service.fhir import fhir_rows as F
from tests.service.search.calls import all_results
from tests.source_rows import active_rows, canonical_bid, coverage_rows, in_force

Row = dict[str, str]
TODAY = shared.SAMPLE_TODAY
ENDED = "2026-06-01"  # a termination date before SAMPLE_TODAY
TIMEOUT_S = 600.0  # per load or update: a guard against a hang, not a measure of speed
ROWS = [{**r, "bid_id": canonical_bid(r["bid_id"])} for r in coverage_rows(shared.SAMPLE_DIR)]
COLUMNS = [*ROWS[0], "action"]
KEY = ("contract_year", "bid_id", "npi", "location_id")


def _in_force(row: Row, day: date) -> bool:
    """In network and in force on ``day``."""
    return row["network_status"] == "in_network" and in_force(row, day)


def _sole_in_force() -> list[Row]:
    """Rows in network today, the only row of their plan and NPI, effective before ENDED."""
    per_pair = Counter((r["contract_year"], r["bid_id"], r["npi"]) for r in ROWS)
    return [
        r
        for r in ROWS
        if per_pair[r["contract_year"], r["bid_id"], r["npi"]] == 1
        and _in_force(r, TODAY)
        and (not r["effective_date"] or r["effective_date"] < ENDED)
    ]


def _bad_check_digit(npi: str) -> str:
    return npi[:-1] + str((int(npi[-1]) + 1) % 10)  # one check digit is valid, so this is not


def _delete(row: Row) -> Row:
    return {**{k: row[k] for k in KEY}, "action": "delete"}


def _write(path: Path, rows: list[Row]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, COLUMNS, restval="")
        writer.writeheader()
        writer.writerows(rows)
    return path


def _listed(path: Path | None) -> list[tuple[str, str, str, str]]:
    """The reject file's lines: (source, row, npi, reason)."""
    assert path is not None
    with open(path, encoding="utf-8", newline="") as handle:
        return [(r["source"], r["row"], r["npi"], r["reason"]) for r in csv.DictReader(handle)]


async def _coverage_docs(es: AsyncElasticsearch, names: IndexNames, row: Row) -> dict[str, Any]:
    """The stored (refreshed) coverage hits of the row's plan and NPI, by id."""
    terms = {"npi": row["npi"], "bidId": row["bid_id"], "contractYear": row["contract_year"]}
    query = {"bool": {"filter": [{"term": {k: v}} for k, v in terms.items()]}}
    index = names.alias("coverage")
    found = await es.search(index=index, query=query, seq_no_primary_term=True, size=100)
    return {hit["_id"]: hit for hit in found["hits"]["hits"]}


async def _load(
    es: AsyncElasticsearch, names: IndexNames, sources: SourceFiles, tmp: Path
) -> LoadReport:
    options = LoadOptions(names=names, reject_file=tmp / "load-rejects.csv")
    return await asyncio.wait_for(load(es, sources, options), TIMEOUT_S)


@dataclasses.dataclass
class Live:
    """The sample loaded under the test's prefix, and the service reading it."""

    es: AsyncElasticsearch
    names: IndexNames
    api: shared.ApiClient
    headers: dict[str, str]
    tmp: Path
    nppes: Path

    async def update(self, rows: list[Row], name: str = "delta.csv") -> UpdateReport:
        path = _write(self.tmp / name, rows)
        reject = self.tmp / f"rejects-{name}"
        options = UpdateOptions(names=self.names, reject_file=reject)
        return await asyncio.wait_for(update_coverage(self.es, path, options), TIMEOUT_S)

    async def status(self, row: Row) -> str:
        """The coverage API's status of the row's NPI (all its locations) in the row's plan."""
        body = {"contractYear": int(row["contract_year"]), "bidIds": [row["bid_id"]]}
        body["npis"] = [{"npi": row["npi"]}]
        response = await self.api.post("/v2/providers/coverage", json=body, headers=self.headers)
        assert response.status == 200, await response.text()
        [plan] = await response.json()
        [provider] = plan["providers"]
        return str(provider["networkStatus"])

    async def point(self, npi: str) -> dict[str, float] | None:
        response = await self.api.get(f"/v2/providers/{npi}/locations", headers=self.headers)
        assert response.status == 200, await response.text()
        for address in [location["address"] for location in await response.json()]:
            if address["lat"] is not None and address["lng"] is not None:
                return {"lat": address["lat"], "lng": address["lng"]}
        return None

    async def in_search(self, row: Row) -> bool:
        """Whether the in-network filter of the row's plan returns its NPI, around it."""
        point = await self.point(row["npi"])
        assert point is not None
        plan = {"bidId": row["bid_id"], "contractYear": int(row["contract_year"])}
        results = await all_results(self.api, self.headers, location=point, radius=1, **plan)
        return row["npi"] in {result["npis"][0] for result in results}

    async def fhir_finds(self, npi: str) -> bool:
        """Whether a FHIR search by the NPPES row's practice ZIP (and family name) finds it."""
        row = F.row_of(npi)
        zip5 = F.place(row).zip[:5]
        if row["Entity Type Code"] == "1":
            asked = [
                (
                    "Practitioner",
                    [("_id", npi), ("family", row["Provider Last Name (Legal Name)"])],
                ),
                ("PractitionerRole", [("_id", npi), ("location.address-postalcode", zip5)]),
            ]
        else:
            asked = [("Organization", [("_id", npi), ("address", zip5)])]
        for kind, params in asked:
            found = await F.fetch(self.api, f"/fhir/{kind}", params, headers=self.headers)
            if [entry["resource"]["id"] for entry in found.get("entry", [])] != [npi]:
                return False
        return True

    async def geocoded(self, rows: list[Row]) -> Row:
        """The first row whose NPI has a location with a point (search can find it)."""
        for row in rows[:50]:
            if await self.point(row["npi"]) is not None:
                return row
        raise AssertionError("no candidate with a geocoded location")

    async def uncovered(self) -> Row:
        """A new in-network row: an active sample NPI without coverage, in a sample plan."""
        covered = {r["npi"] for r in ROWS}
        plan = _sole_in_force()[0]
        return await self.geocoded(
            [
                {**plan, "npi": n["NPI"], "location_id": "", "source": "delta-test"}
                for n in active_rows(self.nppes)
                if n["NPI"] not in covered
            ]
        )

    async def seq_nos(self, npis: list[str]) -> dict[str, int]:
        """The search documents' sequence numbers (a rewrite changes them)."""
        search = self.names.alias("search")
        return {npi: (await self.es.get(index=search, id=npi))["_seq_no"] for npi in npis}

    async def coverage_docs(self, row: Row) -> dict[str, Any]:
        return await _coverage_docs(self.es, self.names, row)


@pytest.fixture
async def live(
    serve: shared.Serve,
    es: AsyncElasticsearch,
    es_url: str,
    sample_copy: shared.SampleCopy,
    sample_sources: SourceFiles,
    tmp_path: Path,
) -> Live:
    """The loaded sample's own copy (cloned, not reloaded), the service on it."""
    settings = shared.settings_for(es_url, sample_copy.names)
    api = await serve(settings, today=lambda: TODAY)
    return Live(
        es, sample_copy.names, api, shared.bearer(settings), tmp_path, sample_sources.nppes_file
    )


async def test_a_termination_before_today_takes_the_provider_out_of_network(live: Live) -> None:
    row = await live.geocoded(_sole_in_force())
    others = [r for r in ROWS if r["npi"] == row["npi"] and r["bid_id"] != row["bid_id"]]
    kept = [r for r in others if _in_force(r, TODAY)][:3]  # the provider's other plans
    assert kept and all([await live.in_search(r) for r in kept])
    assert await live.status(row) == "in_network" and await live.in_search(row)
    assert await live.fhir_finds(row["npi"])
    report = await live.update([{**row, "termination_date": ENDED}])
    assert report.outcomes == {"changed": 1} and report.accounted
    assert report.search_rewritten == 1
    assert await live.fhir_finds(row["npi"])  # the rewritten document keeps its FHIR terms
    assert await live.status(row) == "out_of_network"
    assert not await live.in_search(row)
    assert all([await live.in_search(r) for r in kept])
    [stored] = (await live.coverage_docs(row)).values()
    assert stored["_source"]["terminationDate"] == ENDED
    assert stored["_source"]["networkStatus"] == "in_network"


async def test_a_delete_removes_the_row(live: Live) -> None:
    row = await live.geocoded(_sole_in_force()[::-1])
    assert await live.status(row) == "in_network" and await live.in_search(row)
    report = await live.update([_delete(row)])
    assert report.outcomes == {"removed": 1} and report.accounted
    assert report.search_rewritten == 1
    assert await live.coverage_docs(row) == {}
    assert await live.status(row) == "out_of_network"
    assert not await live.in_search(row)


async def test_a_new_row_puts_the_provider_in_network(live: Live) -> None:
    row = await live.uncovered()
    assert await live.status(row) == "out_of_network" and not await live.in_search(row)
    report = await live.update([row])
    assert report.outcomes == {"added": 1} and report.accounted
    assert report.search_rewritten == 1
    assert await live.status(row) == "in_network"
    assert await live.in_search(row)
    # Its PractitionerRole's networks changed: its search document is stamped with the update.
    stored = await live.es.get(index=live.names.alias("search"), id=row["npi"])
    assert stored["_source"]["changedAt"] == report.changed_at


async def test_equal_rows_and_deletes_of_missing_rows_rewrite_nothing(live: Live) -> None:
    as_is, stranger = ROWS[0], await live.uncovered()
    dated = next(r for r in ROWS if r["effective_date"] and r["location_id"] and r is not as_is)
    # The same values spelled otherwise: a dashed bid id, a US date, an upper-case location id.
    respelled = {
        **dated,
        "bid_id": dated["bid_id"].replace("_", "-"),
        "effective_date": date.fromisoformat(dated["effective_date"]).strftime("%m/%d/%Y"),
        "location_id": dated["location_id"].upper(),
        "action": "upsert",
    }
    other_location = {**as_is, "location_id": "00000000-0000-4000-8000-000000000000"}
    delta = [as_is, respelled, _delete(other_location), _delete(stranger)]
    npis = sorted({as_is["npi"], dated["npi"], stranger["npi"]})
    before = await live.seq_nos(npis)
    stored = {**await live.coverage_docs(as_is), **await live.coverage_docs(dated)}
    report = await live.update(delta)
    assert report.outcomes == {"unchanged": 4} and report.accounted
    assert report.search_rewritten == 0 and not report.changed_anything
    assert await live.seq_nos(npis) == before
    assert {**await live.coverage_docs(as_is), **await live.coverage_docs(dated)} == stored


async def test_rejected_rows_are_counted_by_reason_and_listed(live: Live) -> None:
    good, new = ROWS[0], await live.uncovered()
    bad_npi = _bad_check_digit(good["npi"])
    rows = [
        {**good, "npi": bad_npi},
        {**good, "action": "remove"},
        new,
        {**new, "network_status": "out_of_network"},
    ]
    report = await live.update(rows, "rejecting.csv")
    assert report.rejected == {"invalid_npi": 1, "invalid_action": 1, "duplicate": 1}
    assert report.outcomes == {"added": 1}
    assert report.rows_read == 4 and report.accounted
    assert report.reject_file == live.tmp / "rejects-rejecting.csv"
    assert _listed(report.reject_file) == [
        ("rejecting.csv", "1", bad_npi, "invalid_npi"),
        ("rejecting.csv", "2", good["npi"], "invalid_action"),
        ("rejecting.csv", "4", new["npi"], "duplicate"),
    ]
    assert await live.status(new) == "in_network"  # the first of the two rows won


async def test_a_duplicate_delete_is_listed_with_its_npi(live: Live) -> None:
    row = _sole_in_force()[0]
    report = await live.update([_delete(row), _delete(row)], "twice.csv")
    assert report.rejected == {"duplicate": 1} and report.outcomes == {"removed": 1}
    assert _listed(report.reject_file) == [("twice.csv", "2", row["npi"], "duplicate")]


async def test_the_same_delta_twice_changes_nothing_the_second_time(live: Live) -> None:
    changed, removed = _sole_in_force()[:2]
    added = await live.uncovered()
    delta = [{**changed, "termination_date": ENDED}, _delete(removed), added]
    first = await live.update(delta)
    assert first.outcomes == {"changed": 1, "removed": 1, "added": 1}
    npis = sorted({changed["npi"], removed["npi"], added["npi"]})
    before = await live.seq_nos(npis)
    second = await live.update(delta)
    assert second.outcomes == {"unchanged": 3} and second.accounted
    assert second.search_rewritten == 0
    assert await live.seq_nos(npis) == before


async def test_status_lists_each_update_with_its_file_and_outcomes(live: Live) -> None:
    row = _sole_in_force()[0]
    first = await live.update([_delete(row)], "week1.csv")
    bad = {**row, "npi": _bad_check_digit(row["npi"])}
    second = await live.update([_delete(row), bad], "week2.csv")
    updates = (await live_version(live.es, live.names)).updates
    assert [(u["kind"], u["file"], u["outcomes"], u["rows"], u["rejected"]) for u in updates] == [
        ("coverage", "week1.csv", {"removed": 1}, 1, 0),
        ("coverage", "week2.csv", {"unchanged": 1}, 2, 1),
    ]
    assert [dict(first.outcomes), dict(second.outcomes)] == [u["outcomes"] for u in updates]


async def test_a_delete_row_in_a_full_load_is_rejected(
    es: AsyncElasticsearch, index_names: IndexNames, sample_sources: SourceFiles, tmp_path: Path
) -> None:
    kept = _sole_in_force()[0]
    extra = _write(tmp_path / "coverage_extra.csv", [_delete(kept)])
    sources = dataclasses.replace(sample_sources, coverage=(*sample_sources.coverage, extra))
    report = await _load(es, index_names, sources, tmp_path)
    rejected = {
        why: n for (source, why), n in report.source_rejected.items() if source == extra.name
    }
    assert rejected == {"delete_in_load": 1} and report.source_rows[extra.name] == 1
    [stored] = (await _coverage_docs(es, index_names, kept)).values()
    fields = ("networkStatus", "locationId", "effectiveDate", "terminationDate")
    columns = ("network_status", "location_id", "effective_date", "termination_date")
    assert [stored["_source"][f] or "" for f in fields] == [kept[c] for c in columns]


def _zip_plan_rows() -> list[Row]:
    path = shared.SAMPLE_DIR / "medicare_plan_finder_2026_zip_plan.csv"
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


async def test_a_plans_first_row_flags_it_and_keeps_it_found_by_zip(live: Live) -> None:
    """A plan no row named: its first row makes it answer in network (not unknown), and the
    plan search still finds it in a ZIP the Plan Finder files sell it in."""
    with_rows = {r["bid_id"] for r in ROWS}
    sold = [(canonical_bid(z["bid_id"]), z["zip"]) for z in _zip_plan_rows()]
    year = int(ROWS[0]["contract_year"])

    async def found_in(zip5: str) -> set[str]:
        body = {"zip": zip5, "contractYear": year, "pageSize": 100, "snp": "include"}
        body["planTypes"] = ["H", "R", "E", "S"]
        answer = await live.api.post("/v2/plans/search", json=body, headers=live.headers)
        assert answer.status == 200, await answer.text()
        return {plan["bidId"] for plan in (await answer.json())["results"]}

    candidates = dict(pair for pair in sold if pair[0] not in with_rows)  # a ZIP per plan
    sold_and_found = [(b, z) for b, z in list(candidates.items())[:40] if b in await found_in(z)]
    bid, zip5 = sold_and_found[0]
    row = {**(await live.uncovered()), "bid_id": bid}
    assert await live.status(row) == "unknown"
    report = await live.update([row])
    assert report.outcomes == {"added": 1}
    assert await live.status(row) == "in_network"
    assert bid in await found_in(zip5)
