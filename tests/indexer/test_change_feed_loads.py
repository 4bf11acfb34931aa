"""The change feed after full loads and a rollback: a load of changed files records what changed
from the version served before it, a rollback records the way back, a reload of the same files
records nothing. The expectations come from the edits the test makes to the sample's files."""

from __future__ import annotations

import csv
import gzip
import shutil
from pathlib import Path
from typing import Any

from elasticsearch import AsyncElasticsearch

import tests.conftest as shared
from indexer.cli.status import rollback_lines, status_lines
from indexer.load.run import LoadOptions, SourceFiles, load
from tests.indexer.test_change_feed import ROWS, _feed, _told
from tests.source_rows import active_rows, canonical_bid, coverage_rows

PRACTICE = "Provider First Line Business Practice Location Address"
LAST_NAME = "Provider Last Name (Legal Name)"
Row = dict[str, str]


def _edited_nppes(source: Path, target: Path, edits: dict[str, Row]) -> None:
    with gzip.open(source, "rt", encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        fields, rows = list(reader.fieldnames or []), list(reader)
    with gzip.open(target, "wt", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fields)
        writer.writeheader()
        writer.writerows(edits.get(row["NPI"], row) for row in rows)


def _without_row(path: Path, dropped: Row) -> None:
    """The coverage file without one row (its comment lines kept)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    data = [n for n, line in enumerate(lines) if not line.startswith("#")]
    header = next(csv.reader([lines[data[0]]]))
    for n in data[1:]:
        if dict(zip(header, next(csv.reader([lines[n]])), strict=False)) == dropped:
            del lines[n]
            break
    else:
        raise AssertionError("the row to drop is not in the file")
    path.write_text("".join(lines), encoding="utf-8")


def _changed_sources(sources: SourceFiles, into: Path) -> tuple[SourceFiles, list[Any]]:
    """The sample's files with a provider moved, one renamed and one coverage row gone; and the
    records a load of them must make over the sample."""
    shutil.copytree(shared.SAMPLE_DIR, into)
    dac = "".join(p.read_text(encoding="utf-8") for p in sources.dac)
    covered = {r["npi"] for r in ROWS}
    rows = active_rows(sources.nppes_file)
    alone = [r for r in rows if r["NPI"] not in dac and r["NPI"] not in covered and r[PRACTICE]]
    moving = alone[0]
    renamed = next(r for r in alone[1:] if r["Entity Type Code"] == "1")
    _edited_nppes(
        sources.nppes_file,
        into / sources.nppes_file.name,
        {
            moving["NPI"]: {**moving, PRACTICE: "9 NEWPLACE RD"},
            renamed["NPI"]: {**renamed, LAST_NAME: "ZZYZXOVA"},
        },
    )
    written = coverage_rows(shared.SAMPLE_DIR)
    pairs = [(r["contract_year"], canonical_bid(r["bid_id"]), r["npi"]) for r in written]
    active = {r["NPI"] for r in rows}
    leaving = next(
        r for r, pair in zip(written, pairs, strict=True)
        if pairs.count(pair) == 1 and r["network_status"] == "in_network" and r["npi"] in active
    )  # fmt: skip
    [coverage] = sorted(into.glob("coverage_*.csv"))
    _without_row(coverage, leaving)
    plan = canonical_bid(leaving["bid_id"])
    expected = [
        ("location_changed", moving["NPI"], None, None),
        ("name_changed", renamed["NPI"], None, None),
        ("network_left", leaving["npi"], plan, int(leaving["contract_year"])),
    ]
    return SourceFiles.discover(into), sorted(expected)


async def test_loads_record_their_difference_and_a_rollback_the_way_back(
    serve: shared.Serve,
    es: AsyncElasticsearch,
    es_url: str,
    sample_copy: shared.SampleCopy,
    sample_sources: SourceFiles,
    tmp_path: Path,
) -> None:
    names = sample_copy.names
    changed, expected = _changed_sources(sample_sources, tmp_path / "changed")
    feed = await _feed(serve, es_url, sample_copy)
    _, start = await feed.every()
    options = LoadOptions(names=names, reject_file=tmp_path / "rejects.csv")

    report = await load(es, changed, options)
    assert report.changes_recorded == len(expected), report.changes_skipped
    loaded, after_load = await feed.every(since=start)
    assert _told(loaded) == expected
    assert all(c["source"] == changed.main.name for c in loaded)
    move = next(c for c in loaded if c["kind"] == "location_changed")
    assert move["after"]["address"]["line1"] == "9 NEWPLACE RD"
    rename = next(c for c in loaded if c["kind"] == "name_changed")
    assert "ZZYZXOVA" in rename["after"].upper() and "ZZYZXOVA" not in rename["before"].upper()

    lines = await rollback_lines(es, names)
    assert f"change feed        {len(expected)} changes back to it" in lines
    back, after_rollback = await feed.every(since=after_load)
    way_back = sorted(
        ("network_joined" if kind == "network_left" else kind, npi, bid, year)
        for kind, npi, bid, year in expected
    )
    assert _told(back) == way_back
    back_move = next(c for c in back if c["kind"] == "location_changed")
    assert back_move["before"] == move["after"] and back_move["after"] == move["before"]

    again = await load(es, sample_sources, options)  # the files the served version was made of
    assert (again.changes_recorded, again.changes_skipped) == (0, None)
    assert await feed.every(since=after_rollback) == ([], after_rollback)
    status, _ = await status_lines(es, names)
    assert f"change feed        records 1 to {2 * len(expected)}" in status
