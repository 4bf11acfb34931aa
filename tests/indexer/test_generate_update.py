"""Weekly NPPES update files made from the sample's real rows: each kind of row reads as it should
and differs from its source row as a real week's would."""

from __future__ import annotations

import gzip
from collections import Counter
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest

from core.npi import is_valid_npi
from indexer.generate.nppes import FIRST_PAYLOAD
from indexer.generate.weekly import UpdateCounts, UpdateStats, generate_update
from indexer.load.run import SourceFiles
from indexer.sources.nppes import Deactivated, NppesRecord, read_nppes
from tests.source_rows import is_active, nppes_rows

PRACTICE = "Provider Business Practice Location Address"
ADDRESS = (
    "Provider First Line Business Practice Location Address",
    "Provider Second Line Business Practice Location Address",
    f"{PRACTICE} City Name",
    f"{PRACTICE} State Name",
    f"{PRACTICE} Postal Code",
    f"{PRACTICE} Country Code (If outside U.S.)",
    f"{PRACTICE} Telephone Number",
    f"{PRACTICE} Fax Number",
)
CHANGES = {
    "address": ADDRESS,
    "phone": (f"{PRACTICE} Telephone Number",),
    "name": ("Provider Last Name (Legal Name)", "Provider Organization Name (Legal Business Name)"),
    "taxonomy": ("Healthcare Provider Taxonomy Code_1",),
}
CHANGEABLE = {column for columns in CHANGES.values() for column in columns}
UPDATED = "Last Update Date"
ENUMERATED = "Provider Enumeration Date"
DEACTIVATED = "NPI Deactivation Date"
REACTIVATED = "NPI Reactivation Date"
COUNTS = UpdateCounts(new=40, changed=150, deactivated=20, reactivated=12, stale=10, invalid=5)


def day(text: str) -> date:
    return datetime.strptime(text, "%m/%d/%Y").date()


@pytest.fixture(scope="module")
def source(sample_sources: SourceFiles) -> dict[str, dict[str, str]]:
    return {row["NPI"]: row for row in nppes_rows(sample_sources.nppes_file)}


@pytest.fixture(scope="module")
def update(
    tmp_path_factory: pytest.TempPathFactory, sample_sources: SourceFiles
) -> tuple[UpdateStats, dict[str, dict[str, str]]]:
    out = tmp_path_factory.mktemp("update") / "npidata_pfile_update.csv.gz"
    stats = generate_update(sample_sources.nppes_file, out, COUNTS, seed=5)
    rows = nppes_rows(out)
    assert len(rows) == COUNTS.total
    return stats, {row["NPI"]: row for row in rows}


def test_the_file_has_the_rows_asked_for_under_the_source_header(
    update: tuple[UpdateStats, dict[str, dict[str, str]]], sample_sources: SourceFiles
) -> None:
    stats, rows = update
    assert stats.written == stats.requested == COUNTS and stats.rows == COUNTS.total
    with gzip.open(stats.out, "rb") as written, gzip.open(sample_sources.nppes_file, "rb") as real:
        assert written.readline() == real.readline()  # quoted, CRLF, the same 330 names
    npis = [npi for kind in stats.npis.__dataclass_fields__ for npi in getattr(stats.npis, kind)]
    assert sorted(npis) == sorted(rows)  # every NPI in one kind only
    assert f"week of {stats.week.isoformat()}" in str(stats) and "short" not in str(stats)


def test_each_kind_reads_as_the_updater_will_see_it(
    update: tuple[UpdateStats, dict[str, dict[str, str]]],
) -> None:
    stats, rows = update
    rejected: dict[str, str] = {}
    read = {
        row.npi: row
        for row in read_nppes(stats.out, lambda _f, _r, npi, why: rejected.update({npi: why}))
    }
    for npi in (*stats.npis.changed, *stats.npis.new, *stats.npis.reactivated, *stats.npis.stale):
        assert isinstance(read[npi], NppesRecord)
    for npi in stats.npis.deactivated:
        assert isinstance(read[npi], Deactivated)
        filled = {column for column, value in rows[npi].items() if value}
        assert filled == {"NPI", DEACTIVATED} and day(rows[npi][DEACTIVATED]) == stats.week
    for npi in stats.npis.invalid:
        assert npi not in read and rejected[npi] == "invalid_npi"
        assert len(npi) == 10 and npi.isdigit()
    kinds = {npi: kind for kind in COUNTS.__dataclass_fields__ for npi in getattr(stats.npis, kind)}
    first = Counter(kinds[npi] for npi in list(rows)[: COUNTS.total // 5])
    assert len(first) >= 3  # interleaved, not grouped by kind


def changed_kinds(before: dict[str, str], after: dict[str, str]) -> set[str]:
    assert {c for c in before if before[c] != after[c]} <= CHANGEABLE | {UPDATED}
    return {
        kind for kind, columns in CHANGES.items() if any(before[c] != after[c] for c in columns)
    }


def test_changed_rows_take_real_values_of_other_rows_and_the_week_date(
    update: tuple[UpdateStats, dict[str, dict[str, str]]], source: dict[str, dict[str, str]]
) -> None:
    stats, rows = update
    real = {column: {row[column] for row in source.values()} for column in CHANGEABLE}
    mix: Counter[str] = Counter()
    for npi in stats.npis.changed:
        before, after = source[npi], rows[npi]
        assert is_active(before) and day(after[UPDATED]) == stats.week >= day(before[UPDATED])
        kinds = changed_kinds(before, after)
        assert kinds, npi
        mix.update(kinds)
        assert all(after[column] in real[column] for column in CHANGEABLE)
        switch = "Healthcare Provider Primary Taxonomy Switch_1"
        assert after[switch] == before[switch]
    assert set(mix) == set(CHANGES)  # a mix of the four changes
    assert sum(mix.values()) > len(stats.npis.changed)  # some rows change more than one thing


def test_stale_rows_are_changed_rows_dated_before_their_source_row(
    update: tuple[UpdateStats, dict[str, dict[str, str]]], source: dict[str, dict[str, str]]
) -> None:
    stats, rows = update
    for npi in stats.npis.stale:
        before, after = source[npi], rows[npi]
        assert changed_kinds(before, after)
        older = day(before[UPDATED]) - day(after[UPDATED])
        assert timedelta(days=1) <= older <= timedelta(days=365)
        assert day(after[UPDATED]) >= day(before[ENUMERATED])


def test_new_rows_are_real_rows_under_fresh_npis(
    update: tuple[UpdateStats, dict[str, dict[str, str]]], source: dict[str, dict[str, str]]
) -> None:
    stats, rows = update
    names = {
        (
            row["Provider Last Name (Legal Name)"],
            row["Provider Organization Name (Legal Business Name)"],
        )
        for row in source.values()
        if is_active(row)
    }
    for npi in stats.npis.new:
        assert is_valid_npi(npi) and npi not in source
        assert not FIRST_PAYLOAD <= int(npi[:9]) < FIRST_PAYLOAD + 10_000_000  # not generate's
        row = rows[npi]
        assert day(row[ENUMERATED]) == day(row[UPDATED]) == stats.week
        assert row[DEACTIVATED] == row[REACTIVATED] == ""
        assert (row["Provider Last Name (Legal Name)"], row[CHANGES["name"][1]]) in names


def test_reactivated_rows_were_deactivated_in_the_source(
    update: tuple[UpdateStats, dict[str, dict[str, str]]], source: dict[str, dict[str, str]]
) -> None:
    stats, rows = update
    for npi in stats.npis.reactivated:
        before, after = source[npi], rows[npi]
        assert not is_active(before) and after["Entity Type Code"] in ("1", "2")
        assert after[DEACTIVATED] == before[DEACTIVATED]
        assert day(after[REACTIVATED]) == day(after[UPDATED]) == stats.week
        assert day(after[REACTIVATED]) >= day(after[DEACTIVATED]) >= day(after[ENUMERATED])


def test_the_week_follows_the_source_latest_date(
    update: tuple[UpdateStats, dict[str, dict[str, str]]],
    source: dict[str, dict[str, str]],
    sample_sources: SourceFiles,
    tmp_path: Path,
) -> None:
    stats, _ = update
    latest = max(
        day(value)
        for row in source.values()
        for column, value in row.items()
        if column.endswith(" Date") and value
    )
    assert stats.week == latest + timedelta(days=7)
    later = latest + timedelta(days=30)
    counts = UpdateCounts(new=1, changed=1, deactivated=1, reactivated=1, stale=0)
    assert (
        generate_update(sample_sources.nppes_file, tmp_path / "u.csv", counts, week=later).week
        == later
    )
    with pytest.raises(ValueError, match="before the source's latest date"):
        generate_update(
            sample_sources.nppes_file, tmp_path / "u.csv", counts, week=latest - timedelta(1)
        )


def test_generation_is_deterministic_and_seeded(
    update: tuple[UpdateStats, dict[str, dict[str, str]]],
    sample_sources: SourceFiles,
    tmp_path: Path,
) -> None:
    stats, _ = update
    written = gzip.decompress(stats.out.read_bytes())  # the gzip header names the file
    again = generate_update(sample_sources.nppes_file, tmp_path / "again.csv", COUNTS, seed=5)
    assert again.out.read_bytes() == written
    other = generate_update(sample_sources.nppes_file, tmp_path / "other.csv", COUNTS, seed=6)
    assert other.out.read_bytes() != written
    assert not list(tmp_path.glob("*.partial"))


def test_default_counts_and_fewer_deactivated_npis_than_asked(
    sample_sources: SourceFiles, source: dict[str, dict[str, str]], tmp_path: Path
) -> None:
    active = sum(is_active(row) for row in source.values())
    gone = sum(not is_active(row) and bool(row[DEACTIVATED]) for row in source.values())
    stats = generate_update(sample_sources.nppes_file, tmp_path / "default.csv")
    assert stats.written == stats.requested == UpdateCounts.week(active)
    asked = UpdateCounts(new=0, changed=1, deactivated=0, reactivated=gone + 5, stale=0)
    short = generate_update(sample_sources.nppes_file, tmp_path / "short.csv", asked)
    assert short.written.reactivated == len(short.npis.reactivated) == gone > 0
    assert f"{gone} of {gone + 5} reactivated" in str(short)


def test_week_counts_follow_a_real_week_proportions() -> None:
    assert UpdateCounts.week(9_000_000, rows=20_000) == UpdateCounts(
        new=5_000, changed=13_600, deactivated=1_000, reactivated=200, stale=200
    )
    assert UpdateCounts.week(9_000_000).total == 18_000  # 0.2 % by default
    for rows in range(200):
        counts = UpdateCounts.week(1, rows=rows)
        assert counts.total == rows and counts.invalid == 0
        if rows >= 3:
            assert min(counts.new, counts.changed, counts.deactivated) >= 1
    assert UpdateCounts.week(1, rows=1).changed == 1
    with pytest.raises(ValueError):
        UpdateCounts(new=-1, changed=0, deactivated=0, reactivated=0, stale=0)
