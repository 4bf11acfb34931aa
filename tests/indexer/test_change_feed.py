"""The change feed (``GET /v2/changes``) after updates of the sample: each update's records are
exactly what the update file the test writes changes, and no others; followed page by page, the
feed gives each once. Expectations come from the files written here, never from the feed."""

from __future__ import annotations

import asyncio
import csv
import shutil
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from elasticsearch import AsyncElasticsearch

import tests.conftest as shared
from core.es_client import make_client
from indexer.change_log import ChangeLog
from indexer.cli.status import status_lines
from indexer.load.run import SourceFiles
from indexer.publication import publish
from indexer.sources.discovery import PlanFiles
from indexer.update.coverage import update_coverage
from indexer.update.nppes import update_nppes
from indexer.update.options import UpdateOptions
from indexer.update.plans import update_plans
from tests.indexer.holding_relay import HANG_S, HoldingRelay
from tests.source_rows import active_rows, canonical_bid, coverage_rows

Row = dict[str, str]
ROWS = [{**r, "bid_id": canonical_bid(r["bid_id"])} for r in coverage_rows(shared.SAMPLE_DIR)]
PRACTICE = "Provider First Line Business Practice Location Address"
YEAR = 2026  # the sample's Plan Finder files
GEOGRAPHY = ("medicare_plan_finder_2026_zip_plan.csv", "medicare_plan_finder_2026_plan_county.csv")


class Feed:
    def __init__(self, api: shared.ApiClient, headers: dict[str, str]) -> None:
        self.api, self.headers = api, headers

    async def page(self, **query: Any) -> tuple[int, Any]:
        params = [
            (k, str(v)) for k, vs in query.items() for v in (vs if isinstance(vs, list) else [vs])
        ]
        response = await self.api.get("/v2/changes", params=params, headers=self.headers)
        return response.status, await response.json()

    async def every(self, page_size: int = 1, **query: Any) -> tuple[list[Any], str]:
        """Every change, following the cursor page by page; and where to poll from next."""
        found: list[Any] = []
        cursor: str | None = None
        for _ in range(500):  # a bound: the test's updates record far fewer
            asked = {**query, "pageSize": page_size, **({"since": cursor} if cursor else {})}
            status, body = await self.page(**asked)
            assert status == 200, body
            found += body["changes"]
            told: str = body["nextCursor"]
            if told == cursor or not body["changes"]:
                return found, told
            cursor = told
        raise AssertionError("the feed did not end")


async def _feed(serve: shared.Serve, es_url: str, copy: shared.SampleCopy) -> Feed:
    settings = shared.settings_for(es_url, copy.names)
    return Feed(await serve(settings), shared.bearer(settings))


def _told(changes: list[Any]) -> list[tuple[Any, ...]]:
    return sorted((c["kind"], c["npi"], c["bidId"], c["contractYear"]) for c in changes)


def _read_csv(path: Path) -> tuple[list[str], list[Row]]:
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def _write_csv(path: Path, fields: list[str], rows: list[Row]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fields, restval="")
        writer.writeheader()
        writer.writerows(rows)
    return path


def _coverage_delta(sources: SourceFiles) -> tuple[list[Row], list[tuple[Any, ...]], Row, Row]:
    """A coverage delta: a provider alone in a plan leaves it, another joins it, a third row
    says otherwise of new patients; the records it must make; the leaving and the flipped
    rows."""
    pairs = [(r["contract_year"], r["bid_id"], r["npi"]) for r in ROWS]
    sole = [
        r for r in ROWS
        if pairs.count((r["contract_year"], r["bid_id"], r["npi"])) == 1
        and r["network_status"] == "in_network"
    ]  # fmt: skip
    active = {r["NPI"] for r in active_rows(sources.nppes_file)}
    leaving = next(r for r in sole if r["npi"] in active)
    plan = (leaving["contract_year"], leaving["bid_id"])
    in_plan = {r["npi"] for r in ROWS if (r["contract_year"], r["bid_id"]) == plan}
    joining = next(npi for npi in sorted(active) if npi not in in_plan)
    told = [r for r in sole if r is not leaving and r["accepting_new_patients"] in ("Y", "N")]
    flipped = told[0]
    new_patients = "N" if flipped["accepting_new_patients"] == "Y" else "Y"
    rows = [
        {**{k: leaving[k] for k in ("contract_year", "bid_id", "npi", "location_id")},
         "action": "delete"},
        {**leaving, "npi": joining, "location_id": ""},
        {**flipped, "accepting_new_patients": new_patients},
    ]  # fmt: skip
    year = int(leaving["contract_year"])
    expected = sorted([
        ("network_left", leaving["npi"], leaving["bid_id"], year),
        ("network_joined", joining, leaving["bid_id"], year),
        ("accepting_new_patients_changed", flipped["npi"], flipped["bid_id"],
         int(flipped["contract_year"])),
    ])  # fmt: skip
    return rows, expected, leaving, {**flipped, "accepting_new_patients": new_patients}


async def test_a_coverage_update_records_who_left_joined_and_takes_new_patients(
    serve: shared.Serve,
    es: AsyncElasticsearch,
    es_url: str,
    sample_copy: shared.SampleCopy,
    sample_sources: SourceFiles,
    tmp_path: Path,
) -> None:
    rows, expected, leaving, flipped = _coverage_delta(sample_sources)
    joining = rows[1]["npi"]
    new_patients = flipped["accepting_new_patients"]
    path = _write_csv(tmp_path / "delta.csv", [*ROWS[0], "action"], rows)
    feed = await _feed(serve, es_url, sample_copy)
    before, start = await feed.every()
    assert before == []
    options = UpdateOptions(names=sample_copy.names, reject_file=tmp_path / "rejects.csv")
    report = await update_coverage(es, path, options)
    assert report.accounted

    year = int(leaving["contract_year"])
    changes, end = await feed.every(since=start)
    assert _told(changes) == expected
    accepting = next(c for c in changes if c["kind"] == "accepting_new_patients_changed")
    assert accepting["after"]["acceptingNewPatients"] is (new_patients == "Y")
    assert all(c["source"] == "delta.csv" for c in changes)
    assert len({c["id"] for c in changes}) == 3
    # Followed page by page or in one page, the same changes; filtered as a watch is.
    whole, _ = await feed.every(page_size=100, since=start)
    assert whole == changes
    mine, _ = await feed.every(npi=joining, since=start)
    assert _told(mine) == [("network_joined", joining, leaving["bid_id"], year)]
    planned, _ = await feed.every(bidId=leaving["bid_id"], kind="network_left", since=start)
    assert _told(planned) == [("network_left", leaving["npi"], leaving["bid_id"], year)]
    # The same file again changes nothing: nothing new after the end.
    await update_coverage(es, path, options)
    again, _ = await feed.every(since=end)
    assert again == []
    lines, _ = await status_lines(es, sample_copy.names)
    assert "change feed        records 1 to 3" in lines
    # A month on, with a retention of a day: the records are gone, and so is a cursor before them.
    later = await ChangeLog.begin(es, sample_copy.names, "update")
    marks = await later.commit(1, now=datetime.now(UTC) + timedelta(days=30))
    await publish(es, sample_copy.names, report.version, "update", marks)
    status, body = await feed.page(since=start)
    assert (status, body["code"]) == (410, "cursor_too_old"), body
    assert await feed.every(since=end) == ([], end)


def weekly_file(
    sources: SourceFiles, into: Path, street: str, skip: int = 0
) -> tuple[Path, Row, Row]:
    """A weekly NPPES file deactivating one provider and moving another to ``street`` (each
    only NPPES lists, at one location, in no network; ``skip``: how many such providers to pass
    over); and those two rows as the sample has them."""
    dac = "".join(p.read_text(encoding="utf-8") for p in sources.dac)
    covered = {r["npi"] for r in ROWS}
    rows = active_rows(sources.nppes_file)
    alone = [r for r in rows if r["NPI"] not in dac and r["NPI"] not in covered and r[PRACTICE]]
    gone, moving = alone[skip], alone[skip + 1]
    fields = list(rows[0])
    week = date(2026, 7, 6).strftime("%m/%d/%Y")
    deactivation = {**dict.fromkeys(fields, ""), "NPI": gone["NPI"], "NPI Deactivation Date": week}
    moved = {**moving, PRACTICE: street, "Last Update Date": week}
    path = _write_csv(into / "npidata_pfile_20260629-20260705.csv", fields, [deactivation, moved])
    return path, gone, moving


async def test_a_weekly_file_records_a_deactivation_and_a_move(
    serve: shared.Serve,
    es: AsyncElasticsearch,
    es_url: str,
    sample_copy: shared.SampleCopy,
    sample_sources: SourceFiles,
    tmp_path: Path,
) -> None:
    path, gone, moving = weekly_file(sample_sources, tmp_path, "9 NEWPLACE RD")
    feed = await _feed(serve, es_url, sample_copy)
    _, start = await feed.every()
    options = UpdateOptions(names=sample_copy.names, reject_file=tmp_path / "rejects.csv")
    report = await update_nppes(es, path, options)
    assert report.outcomes == {"deactivated": 1, "changed": 1}

    changes, _ = await feed.every(since=start)
    assert _told(changes) == sorted([
        ("deactivated", gone["NPI"], None, None),
        ("location_removed", gone["NPI"], None, None),
        ("location_changed", moving["NPI"], None, None),
    ])  # fmt: skip
    move = next(c for c in changes if c["kind"] == "location_changed")
    assert move["before"]["address"]["line1"] == moving[PRACTICE]
    assert move["after"]["address"]["line1"] == "9 NEWPLACE RD"
    assert all(c["source"] == path.name for c in changes)


async def test_a_plan_file_records_a_new_premium_and_a_dropped_plan(
    serve: shared.Serve,
    es: AsyncElasticsearch,
    es_url: str,
    sample_copy: shared.SampleCopy,
    tmp_path: Path,
) -> None:
    newer = tmp_path / "newer"
    newer.mkdir()
    for path in shared.SAMPLE_DIR.iterdir():
        if "plan_finder" in path.name or "star_ratings" in path.name:
            shutil.copy(path, newer / path.name)
    plans_csv = newer / "medicare_plan_finder_2026_plans.csv"
    fields, rows = _read_csv(plans_csv)
    repriced, dropped = rows[0], rows[1]
    edited = [
        {**r, "total_monthly_premium": "$42.50"} if r is repriced else r
        for r in rows if r is not dropped
    ]  # fmt: skip
    _write_csv(plans_csv, fields, edited)
    for name in GEOGRAPHY:
        columns, places = _read_csv(newer / name)
        _write_csv(newer / name, columns, [r for r in places if r["bid_id"] != dropped["bid_id"]])
    feed = await _feed(serve, es_url, sample_copy)
    _, start = await feed.every()
    options = UpdateOptions(names=sample_copy.names, reject_file=tmp_path / "rejects.csv")
    await update_plans(es, PlanFiles.beside(plans_csv), options)

    changes, _ = await feed.every(since=start)
    assert _told(changes) == sorted([
        ("plan_changed", None, canonical_bid(repriced["bid_id"]), YEAR),
        ("plan_removed", None, canonical_bid(dropped["bid_id"]), YEAR),
    ])  # fmt: skip
    price = next(c for c in changes if c["kind"] == "plan_changed")
    assert price["after"] == {"monthlyPremium": 42.5}
    assert price["before"]["monthlyPremium"] != 42.5


async def test_bad_cursors_and_filters_are_refused(
    serve: shared.Serve, es_url: str, sample_copy: shared.SampleCopy
) -> None:
    feed = await _feed(serve, es_url, sample_copy)
    status, body = await feed.page(since="nonsense")
    assert (status, body["code"], body["errors"][0]["field"]) == (404, "cursor_not_found", "cursor")
    for query, field in (
        ({"npi": "123"}, "npi"),
        ({"kind": "moved_house"}, "kind"),
        ({"pageSize": 0}, "pageSize"),
        ({"npi": [f"{1000000000 + i}" for i in range(101)]}, "npi"),
    ):
        status, body = await feed.page(**query)
        assert status == 400, (query, body)
        assert any(error["field"].split(".")[0] == field for error in body["errors"]), body


async def test_a_reader_paging_while_an_update_runs_misses_and_repeats_nothing(
    serve: shared.Serve,
    es: AsyncElasticsearch,
    es_url: str,
    sample_copy: shared.SampleCopy,
    sample_sources: SourceFiles,
    tmp_path: Path,
) -> None:
    """The update is held at its last step (the publication record it commits by), its
    documents and records written: the feed shows none of them until it commits, then each
    once, on from the cursor the reader held."""
    rows, expected, _, _ = _coverage_delta(sample_sources)
    path = _write_csv(tmp_path / "delta.csv", [*ROWS[0], "action"], rows)
    feed = await _feed(serve, es_url, sample_copy)
    _, start = await feed.every()
    publication = f"/{sample_copy.names.publication()}/"
    relay = HoldingRelay(es_url, lambda method, at: method != "GET" and at.startswith(publication))
    await relay.start()
    through_relay = make_client(relay.url)
    try:
        options = UpdateOptions(names=sample_copy.names, reject_file=tmp_path / "rejects.csv")
        update = asyncio.create_task(update_coverage(through_relay, path, options))
        await asyncio.wait_for(relay.held.wait(), HANG_S)
        await es.indices.refresh(index=sample_copy.names.changes())
        written = await es.count(index=sample_copy.names.changes())
        assert written["count"] == len(expected)  # recorded, not yet counted
        during, cursor = await feed.every(since=start)
        assert (during, cursor) == ([], start)
        relay.release()
        report = await asyncio.wait_for(update, HANG_S)
        assert report.accounted
    finally:
        await relay.close()
        await through_relay.close()
    after, end = await feed.every(since=cursor)
    assert _told(after) == expected
    assert len({c["id"] for c in after}) == len(expected)
    assert await feed.every(since=end) == ([], end)
