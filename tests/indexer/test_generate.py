"""Scale files resampled from real rows, and the synthetic coverage file.

The generated files are read here with csv (tests.source_rows), never through the indexer's
reader, and the sample's deactivated and reactivated rows are told apart by their dates here."""

from __future__ import annotations

import asyncio
import csv
import gzip
import json
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from core.npi import is_valid_npi
from indexer.cli.main import main
from indexer.generate.coverage import SOURCE, generate_coverage
from indexer.generate.nppes import generate_nppes
from indexer.load.run import SourceFiles
from indexer.sources.nppes import NppesRecord, read_nppes
from indexer.sources.rejects import ignore_rejects
from tests.indexer.conftest import indexer_process
from tests.indexer.expected import csv_dicts
from tests.source_rows import active_rows, is_active, nppes_rows, zip_centroid

PRACTICE = "Provider Business Practice Location Address"
DEACTIVATED_ON = "NPI Deactivation Date"
REACTIVATED_ON = "NPI Reactivation Date"
# The bundled sample, counted once by hand (and checked below): 3,989 rows, 80 of them NPIs
# deactivated and not reactivated since, 45 deactivated and then reactivated.
SAMPLE_ROWS, SAMPLE_DEACTIVATED, SAMPLE_REACTIVATED = 3989, 80, 45


def _day(value: str) -> datetime:
    return datetime.strptime(value, "%m/%d/%Y")


def is_deactivated(row: dict[str, str]) -> bool:
    """Deactivated and not reactivated since (on or after the deactivation)."""
    if not row[DEACTIVATED_ON]:
        return False
    return not row[REACTIVATED_ON] or _day(row[REACTIVATED_ON]) < _day(row[DEACTIVATED_ON])


def is_reactivated(row: dict[str, str]) -> bool:
    return bool(row[DEACTIVATED_ON]) and not is_deactivated(row)


def _without_npi(row: dict[str, str]) -> tuple[str, ...]:
    return tuple(value for name, value in row.items() if name != "NPI")


def test_the_sample_holds_deactivated_and_reactivated_rows(sample_sources: SourceFiles) -> None:
    rows = nppes_rows(sample_sources.nppes_file)
    assert len(rows) == SAMPLE_ROWS
    assert sum(map(is_deactivated, rows)) == SAMPLE_DEACTIVATED
    assert sum(map(is_reactivated, rows)) == SAMPLE_REACTIVATED
    assert all(is_active(row) for row in rows if not is_deactivated(row))


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory, sample_sources: SourceFiles) -> Path:
    out = tmp_path_factory.mktemp("generated") / "npidata_pfile_generated.csv.gz"
    stats = generate_nppes(sample_sources.nppes_file, out, 2000, seed=7)
    # 2000 x 80 / 3989 = 40.1: the sample's share of deactivated NPIs, rounded.
    assert (stats.rows, stats.deactivated, stats.source_rows) == (2000, 40, SAMPLE_ROWS)
    return out


def test_generated_rows_are_real_rows_with_fresh_npis(
    generated: Path, sample_sources: SourceFiles
) -> None:
    real = active_rows(sample_sources.nppes_file)
    written = nppes_rows(generated)
    assert len(written) == 2000
    assert list(written[0]) == list(real[0])  # the same 330-column header
    npis = [row["NPI"] for row in written]
    assert len(set(npis)) == len(npis) and all(is_valid_npi(n) for n in npis)
    assert all(n.startswith("2") for n in npis)  # a range CMS has not issued: no collision
    rows = [row for row in written if is_active(row)]
    assert len(rows) == 2000 - 40
    values = {
        column: {row[column] for row in real}
        for column in (
            "Provider First Name",
            "Provider Last Name (Legal Name)",
            "Provider Organization Name (Legal Business Name)",
            f"{PRACTICE} Postal Code",
            "Healthcare Provider Taxonomy Code_1",
        )
    }
    for row in rows:
        for column, known in values.items():
            assert row[column] in known, column
    # Perturbed: names and places are recombined, not copied row for row.
    real_pairs = {(r["Provider First Name"], r["Provider Last Name (Legal Name)"]) for r in real}
    pairs = Counter(
        (r["Provider First Name"], r["Provider Last Name (Legal Name)"]) in real_pairs
        for r in rows
        if r["Entity Type Code"] == "1"
    )
    assert pairs[False] > pairs[True]
    read = Counter(isinstance(r, NppesRecord) for r in read_nppes(generated, ignore_rejects))
    assert read == {True: 2000 - 40, False: 40}


def test_deactivated_npis_keep_the_source_share_and_shape(
    generated: Path, sample_sources: SourceFiles
) -> None:
    """Rows of deactivated NPIs as CMS writes them (the sample's: the NPI and the date, nothing
    else), each a real one under a fresh NPI, spread through the file in NPI order."""
    source = [r for r in nppes_rows(sample_sources.nppes_file) if is_deactivated(r)]
    assert {tuple(name for name, value in r.items() if value) for r in source} == {
        ("NPI", DEACTIVATED_ON)
    }
    real = {_without_npi(row) for row in source}
    written = nppes_rows(generated)
    npis = [row["NPI"] for row in written]
    assert npis == sorted(npis)
    at = [number for number, row in enumerate(written) if is_deactivated(row)]
    assert len(at) == 40
    for number in at:
        assert _without_npi(written[number]) in real
        assert written[number]["NPI"] not in {row["NPI"] for row in source}
    # Interleaved, not bunched: some in every quarter of the file.
    assert {number * 4 // len(written) for number in at} == {0, 1, 2, 3}
    assert len({written[number][DEACTIVATED_ON] for number in at}) > 10


def test_reactivated_rows_are_kept_in_proportion(
    tmp_path: Path, sample_sources: SourceFiles
) -> None:
    """Active rows deactivated then reactivated (both dates set) are resampled like the others,
    their dates kept: about the sample's share (45 of 3,989, 1.1 %)."""
    source = [r for r in nppes_rows(sample_sources.nppes_file) if is_reactivated(r)]
    dates = {(row[DEACTIVATED_ON], row[REACTIVATED_ON]) for row in source}
    out = tmp_path / "generated.csv"
    generate_nppes(sample_sources.nppes_file, out, 20_000, seed=2)
    written = nppes_rows(out)
    reactivated = [row for row in written if is_reactivated(row)]
    # 20,000 x 80 / 3,989 = 401.1 deactivated
    assert len(written) == 20_000 and sum(map(is_deactivated, written)) == 401
    expected = 20_000 * SAMPLE_REACTIVATED / SAMPLE_ROWS  # 225.6
    assert 0.7 * expected < len(reactivated) < 1.3 * expected
    assert all((r[DEACTIVATED_ON], r[REACTIVATED_ON]) in dates for r in reactivated)
    assert all(is_active(row) for row in reactivated)


async def test_a_generated_file_loads_its_active_rows_and_counts_the_deactivated(
    es: AsyncElasticsearch,
    es_url: str,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    tmp_path: Path,
) -> None:
    """``provider-indexer load`` of a generated file, as an operator runs it: the report's
    deactivated count is the file's deactivated rows (counted here with csv), and only the
    active NPIs are indexed."""
    nppes = tmp_path / "npidata_pfile_generated.csv.gz"
    generate_nppes(sample_sources.nppes_file, nppes, 5000, seed=5)
    written = nppes_rows(nppes)
    deactivated = [row["NPI"] for row in written if is_deactivated(row)]
    active = [row["NPI"] for row in written if is_active(row)]
    assert len(deactivated) == 100 and len(active) == 4900  # 5000 x 80 / 3989 = 100.3
    report_path = tmp_path / "report.json"
    process = indexer_process(
        es_url, index_names, "load", "--nppes", str(nppes), "--nucc",
        str(sample_sources.nucc), "--report-json", str(report_path),
    )  # fmt: skip
    # A guard against a hang, not a measure of speed.
    _, stderr = await asyncio.to_thread(process.communicate, timeout=600)
    assert process.returncode == 0, stderr
    report = json.loads(report_path.read_text())
    assert report["rows_read"] == 5000 and report["accounted"]
    assert report["deactivated"] == len(deactivated)
    assert report["indexed"] == len(active) and not report["rejected"]
    providers = index_names.alias("providers")
    assert (await es.count(index=providers))["count"] == len(active)
    found = await es.mget(index=providers, ids=deactivated)
    assert not any(doc["found"] for doc in found["docs"])
    found = await es.mget(index=providers, ids=active, source=False)
    assert all(doc["found"] for doc in found["docs"])


def test_generation_is_deterministic_and_seeded(
    tmp_path: Path, generated: Path, sample_sources: SourceFiles
) -> None:
    again = tmp_path / "again.csv.gz"
    main(
        [
            "generate",
            "2000",
            "--out",
            str(again),
            "--source",
            str(sample_sources.nppes_file),
            "--seed",
            "7",
        ]
    )
    assert gzip.decompress(again.read_bytes()) == gzip.decompress(generated.read_bytes())
    other = tmp_path / "other.csv"
    generate_nppes(sample_sources.nppes_file, other, 2000, seed=8)
    assert gzip.decompress(generated.read_bytes()) != other.read_bytes()


def test_synthetic_coverage_links_real_npis_to_plans_sold_where_they_practise(
    tmp_path: Path, sample_sources: SourceFiles
) -> None:
    assert sample_sources.plans and sample_sources.zip_plan and sample_sources.plan_county
    out = tmp_path / "coverage.csv"
    stats = generate_coverage(
        sample_sources.nppes_file,
        sample_sources.plans,
        sample_sources.zip_plan,
        sample_sources.plan_county,
        out,
        seed=1,
    )
    assert out.read_text().startswith("# SYNTHETIC")
    assert out.read_bytes() == sample_sources.coverage[0].read_bytes()  # the committed file
    rows = csv_dicts(out)
    assert len(rows) == stats.rows > 0
    plans = {row["bid_id"].replace("-", "_"): row for row in csv_dicts(sample_sources.plans)}
    by_zip: dict[str, set[str]] = {}
    for row in csv_dicts(sample_sources.zip_plan):
        by_zip.setdefault(row["zip"].zfill(5), set()).add(row["bid_id"].replace("-", "_"))
    counties = {
        (row["county"].replace("_", " ").upper(), row["state_dir"])
        for row in csv_dicts(sample_sources.plan_county)
    }
    practice = {r["NPI"]: r for r in active_rows(sample_sources.nppes_file)}
    for row in rows:
        assert row["source"] == SOURCE and row["bid_id"] in plans
        assert not row["bid_id"].startswith("S")  # drug-only plans have no provider network
        place = practice[row["npi"]]
        code = place[f"{PRACTICE} Postal Code"].replace("-", "")[:5]
        assert len(code) == 5 and code.isdigit()
        located = zip_centroid(code)  # read from the package here, not through core.geo
        county = located[2].upper().removesuffix(" COUNTY") if located and located[2] else ""
        assert row["bid_id"] in by_zip.get(code, set()) or any(c == county for c, _ in counties), (
            row
        )
    statuses = Counter(row["network_status"] for row in rows)
    assert statuses["in_network"] > statuses["out_of_network"] > 0
    assert any(row["location_id"] for row in rows)
    assert any(row["termination_date"] for row in rows)


def test_commands_have_help(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("load", "status", "rollback", "generate", "generate-coverage"):
        with pytest.raises(SystemExit) as exit_info:
            main([command, "--help"])
        assert exit_info.value.code == 0
        assert "usage: provider-indexer" in capsys.readouterr().out


def test_generated_file_reads_like_the_cms_file(generated: Path) -> None:
    with gzip.open(generated, "rt", newline="") as handle:
        first = handle.readline()
    assert first.startswith('"NPI","Entity Type Code"') and first.endswith("\r\n")
    assert next(csv.reader([first]))[0] == "NPI"
