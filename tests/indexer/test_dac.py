"""Doctors & Clinicians files: every layout read by header, joined onto NPPES providers."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from core.lookup_answers import stored_locations, stored_provider
from indexer.load.run import LoadReport, SourceFiles
from indexer.sources.dac import read_dac, restore_zip
from indexer.sources.hospitals import canonical_ccn, read_hospitals
from tests.indexer.expected import (
    csv_dicts,
    dac_rows,
    expected_affiliations,
    expected_locations,
)
from tests.source_rows import nppes_rows

Loaded = tuple[IndexNames, LoadReport]
Rejections = list[tuple[str, int, str, str]]


def test_zips_and_ccns_get_their_leading_zeros_back() -> None:
    assert restore_zip("4416") == "04416"
    assert restore_zip("41023134") == "041023134"
    assert restore_zip("100657265") == "100657265"
    assert canonical_ccn("10001") == "010001"
    assert canonical_ccn("330214") == "330214"
    assert canonical_ccn("10064F") == "10064F"
    assert canonical_ccn("") is None


def test_every_layout_is_read_by_header(sample_dir: Path, sample_sources: SourceFiles) -> None:
    rejected: Rejections = []
    hospitals = read_hospitals(sample_dir / "Hospital_General_Information.csv")
    table = read_dac(sample_sources.dac, hospitals, lambda *r: rejected.append(r))
    assert rejected == []
    for path in sample_sources.dac:
        assert table.rows_read[path.name] == len(csv_dicts(path))
    assert set(table.rows) == {row["NPI"].strip() for _, row in dac_rows(sample_dir)}
    # One real row per layout, field by field.
    [dac2021] = table.rows["1215070545"]  # 2021 layout
    assert dac2021.address is not None
    assert (dac2021.address.line1, dac2021.address.line2) == ("116 E 63RD ST", "APT 1A")
    assert (dac2021.address.city, dac2021.address.zip) == ("NEW YORK", "100657265")
    assert [ccn for ccn, _ in dac2021.hospitals] == ["330194", "330214"]
    reduced = table.rows["1003005174"][0]  # reduced Maine extract: ZIP lost its zero
    assert reduced.address is not None and reduced.address.zip == "041023134"
    assert reduced.group is None and reduced.hospitals == ()
    compare = table.rows["1972728988"]  # 2017 layout, two rows (with and without suite)
    assert {row.address.city for row in compare if row.address} == {"LITTLE ROCK"}
    assert compare[0].group == ("CENTRAL ARKANSAS VEIN CENTER, PA", "1254567860")
    assert compare[0].address is not None and compare[0].address.phone == "5014049582"


def test_hospital_names_come_from_the_hospital_file_else_the_dac_name(
    sample_dir: Path, sample_sources: SourceFiles
) -> None:
    hospitals = read_hospitals(sample_dir / "Hospital_General_Information.csv")
    table = read_dac(sample_sources.dac, hospitals, lambda *r: None)
    named = dict(h for rows in table.rows.values() for row in rows for h in row.hospitals)
    assert named["050660"] is not None and "050660" not in hospitals  # leading zero restored
    assert all(named[ccn] == hospitals[ccn] for ccn in named if ccn in hospitals)


def test_languages_column_and_bad_rows(tmp_path: Path) -> None:
    path = tmp_path / "dac_with_languages.csv"
    path.write_text(
        "NPI,Facility Name,org_pac_id,adr_ln_1,City/Town,State,ZIP Code,Languages\n"
        '1003000100,GROUP A,123,1 MAIN ST,AUSTIN,TX,78701,"SPANISH, english"\n'
        "1234567890,GROUP B,456,2 MAIN ST,AUSTIN,TX,78701,\n"
        ",,,,,,,\n"
    )
    rejected: Rejections = []
    table = read_dac([path], {}, lambda *r: rejected.append(r))
    assert table.languages == {"1003000100": ("Spanish", "English")}
    assert [(row, reason) for _, row, _, reason in rejected] == [
        (2, "invalid_npi"),
        (3, "empty_row"),
    ]


async def test_loaded_providers_carry_affiliations_and_every_dac_address(
    es: AsyncElasticsearch, loaded_sample: Loaded, sample_dir: Path, sample_sources: SourceFiles
) -> None:
    names, report = loaded_sample
    groups, hospitals = expected_affiliations(sample_dir)
    locations = expected_locations(sample_dir, sample_sources.nppes_file)
    dac_npis = sorted(
        set(groups) | set(hospitals) | {r["NPI"].strip() for _, r in dac_rows(sample_dir)}
    )
    served = [npi for npi in dac_npis if npi in locations]
    assert served
    found = await es.mget(index=names.alias("providers"), ids=served)
    for doc in found["docs"]:
        npi, provider = doc["_id"], stored_provider(doc["_source"])
        assert [(g["name"], g["pacId"]) for g in provider["groupAffiliations"]] == groups.get(
            npi, []
        )
        assert {h["ccn"]: h["name"] for h in provider["hospitalAffiliations"]} == hospitals.get(
            npi, {}
        )
        sources = Counter(location["source"] for location in stored_locations(doc["_source"]))
        assert sources["nppes"] == 1
        assert sum(sources.values()) == locations[npi], npi
    nppes_npis = {row["NPI"] for row in nppes_rows(sample_sources.nppes_file)}
    assert report.dac_npis_not_in_nppes == len(set(dac_npis) - nppes_npis) == 30
