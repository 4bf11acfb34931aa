"""Scale files resampled from real rows, and the synthetic coverage file."""

from __future__ import annotations

import csv
import gzip
from collections import Counter
from pathlib import Path

import pytest

from core.npi import is_valid_npi
from indexer.cli.main import main
from indexer.generate.coverage import SOURCE, generate_coverage
from indexer.generate.nppes import generate_nppes
from indexer.load.run import SourceFiles
from indexer.sources.nppes import NppesRecord, read_nppes
from indexer.sources.rejects import ignore_rejects
from tests.indexer.expected import csv_dicts
from tests.source_rows import active_rows, nppes_rows, zip_centroid

PRACTICE = "Provider Business Practice Location Address"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory, sample_sources: SourceFiles) -> Path:
    out = tmp_path_factory.mktemp("generated") / "npidata_pfile_generated.csv.gz"
    stats = generate_nppes(sample_sources.nppes_file, out, 2000, seed=7)
    assert stats.rows == 2000 and stats.source_rows == len(active_rows(sample_sources.nppes_file))
    return out


def test_generated_rows_are_real_rows_with_fresh_npis(
    generated: Path, sample_sources: SourceFiles
) -> None:
    real = active_rows(sample_sources.nppes_file)
    rows = nppes_rows(generated)
    assert len(rows) == 2000
    assert list(rows[0]) == list(real[0])  # the same 330-column header
    npis = [row["NPI"] for row in rows]
    assert len(set(npis)) == len(npis) and all(is_valid_npi(n) for n in npis)
    assert all(n.startswith("2") for n in npis)  # a range CMS has not issued: no collision
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
    assert all(isinstance(r, NppesRecord) for r in read_nppes(generated, ignore_rejects))


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
