"""Coverage files (our documented format) and plans: reading, rejecting, loading, inNetwork."""

from __future__ import annotations

import gzip
from pathlib import Path

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames, coverage_doc_id
from indexer.load.run import LoadOptions, LoadReport, SourceFiles, load
from indexer.sources.coverage import CoverageRow, read_coverage
from indexer.sources.plans import read_plans, state_codes
from tests.indexer.expected import csv_dicts, in_network, stored_periods

Loaded = tuple[IndexNames, LoadReport]
HEADER = (
    "contract_year,bid_id,npi,location_id,network_status,accepting_new_patients,"
    "effective_date,termination_date,source\n"
)
LOCATION = "fb5ba2c7-b98e-5241-a5f7-c30d0aa5011f"


def test_variants_are_accepted_and_bad_rows_rejected_with_reasons(tmp_path: Path) -> None:
    text = (
        "# operator comment\n"
        + HEADER
        + "2026,H1234-001,1003000100,,in_network,Y,01/01/2026,,net\n"
        + f"2026,h1234_002_001,1003000100,{LOCATION},out_of_network,,2026-01-01,2026-07-01,\n"
        + "2026,X12-1,1003000100,,in_network,,,,\n"
        + "2026,H1234_001_000,1003000101,,in_network,,,,\n"
        + "2026,H1234_001_000,1003000100,,maybe,,,,\n"
        + "2026,H1234_001_000,1003000100,,in_network,perhaps,,,\n"
        + "2026,H1234_001_000,1003000100,,in_network,,2026-13-01,,\n"
        + "2026,H1234_001_000,1003000100,,in_network,,2026-07-01,2026-07-01,\n"
        + "26,H1234_001_000,1003000100,,in_network,,,,\n"
        + "2026,H1234_001_000,1003000100,not-a-uuid,in_network,,,,\n"
    )
    path = tmp_path / "coverage.csv.gz"
    path.write_bytes(gzip.compress(text.encode()))
    rejected: list[tuple[str, int, str, str]] = []
    parsed = list(read_coverage(path, lambda *r: rejected.append(r)))
    first, second = parsed[:2]
    assert isinstance(first, CoverageRow) and isinstance(second, CoverageRow)
    assert first.doc == {
        "contractYear": 2026,
        "bidId": "H1234_001_000",
        "npi": "1003000100",
        "locationId": None,
        "networkStatus": "in_network",
        "acceptingNewPatients": True,
        "effectiveDate": "2026-01-01",
        "terminationDate": None,
        "source": "net",
    }
    assert first.doc_id == coverage_doc_id(2026, "H1234_001_000", "1003000100", None)
    assert second.doc["bidId"] == "H1234_002_001"
    assert second.doc["locationId"] == LOCATION
    assert second.doc["acceptingNewPatients"] is None
    assert second.doc["source"] == "coverage.csv.gz"
    assert len(parsed) == 2 and {r[0] for r in rejected} == {path.name}
    assert [(row, reason) for _, row, _, reason in rejected] == [
        (3, "invalid_bid_id"),
        (4, "invalid_npi"),
        (5, "invalid_network_status"),
        (6, "invalid_accepting_new_patients"),
        (7, "invalid_date"),
        (8, "termination_not_after_effective"),
        (9, "invalid_contract_year"),
        (10, "invalid_location_id"),
    ]


def test_plans_from_the_plan_file_and_the_geography_files(
    tmp_path: Path, sample_sources: SourceFiles
) -> None:
    assert sample_sources.plans is not None
    source = csv_dicts(sample_sources.plans)
    extra = tmp_path / "medicare_plan_finder_2026_zip_plan.csv"
    extra.write_text("state_dir,zip,county,fips,bid_id\nNH,03101,,,H9999-001-000\nNH,03101,,,bad\n")
    rejected: list[tuple[str, int, str, str]] = []
    plans = read_plans(sample_sources.plans, [extra], lambda *r: rejected.append(r))
    by_bid = {plan["bidId"]: plan for plan in plans}
    assert len(plans) == len(source) + 1
    row = source[0]
    plan = by_bid[row["bid_id"].replace("-", "_")]
    assert (plan["contractId"], plan["planId"], plan["segmentId"]) == (
        row["contract_id"],
        row["pbp_id"],
        row["segment_id"],
    )
    assert plan["planName"] == row["plan_name"] and plan["contractYear"] == 2026
    assert by_bid["H9999_001_000"]["states"] == ["NH"]  # known only from the ZIP file
    assert rejected == [(extra.name, 2, "", "invalid_bid_id")]
    assert state_codes("New_Hampshire;Vermont") == ["NH", "VT"]


async def test_loaded_coverage_equals_the_file_and_feeds_in_network(
    es: AsyncElasticsearch, loaded_sample: Loaded, sample_sources: SourceFiles
) -> None:
    names, report = loaded_sample
    [coverage] = sample_sources.coverage
    rows = csv_dicts(coverage)
    assert report.documents["coverage"] == len(rows)
    ids = [coverage_doc_id(2026, r["bid_id"], r["npi"], r["location_id"] or None) for r in rows]
    found = await es.mget(index=names.alias("coverage"), ids=ids)
    for row, doc in zip(rows, found["docs"], strict=True):
        source = doc["_source"]
        assert source["networkStatus"] == row["network_status"]
        assert source["effectiveDate"] == (row["effective_date"] or None)
        assert source["terminationDate"] == (row["termination_date"] or None)
        assert source["source"] == "synthetic-generator-v1"
    expected = in_network(coverage)
    covered = sorted({row["npi"] for row in rows})
    search = await es.mget(index=names.alias("search"), ids=covered)
    for doc in search["docs"]:
        assert stored_periods(doc["_source"]) == expected.get(doc["_id"], set())
    assert any(expected.values()) and not all(expected.get(npi) for npi in covered)


async def test_a_duplicate_coverage_row_is_rejected_not_double_counted(
    es: AsyncElasticsearch, index_names: IndexNames, sample_sources: SourceFiles, tmp_path: Path
) -> None:
    row = "2026,H2001_076_000,1003403668,,in_network,Y,,,test\n"
    coverage = tmp_path / "coverage_dup.csv"
    coverage.write_text(HEADER + row + row.replace(",Y,", ",N,"))
    rejects = tmp_path / "rejects.csv"
    sources = SourceFiles(
        nppes=sample_sources.nppes_file, nucc=sample_sources.nucc, coverage=(coverage,)
    )
    report = await load(es, sources, LoadOptions(names=index_names, reject_file=rejects))
    assert report.documents["coverage"] == 1
    assert report.source_rejected == {(coverage.name, "duplicate"): 1}
    assert rejects.read_text().splitlines()[1:] == [f"{coverage.name},2,1003403668,duplicate"]
    doc = await es.get(index=index_names.alias("coverage"), id="2026:H2001_076_000:1003403668:*")
    assert doc["_source"]["acceptingNewPatients"] is True  # the first row wins
