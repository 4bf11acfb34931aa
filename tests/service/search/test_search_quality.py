"""Search where people look (issue 13): misspelt specialties, connectors, names as written,
primary specialties first, relaxed stray words and never a silent zero. Expectations come
from the sample's NPPES file (tests.source_rows), not from the code under test."""

from __future__ import annotations

import csv
import re
from collections import Counter
from typing import Any

import pytest
import zipcodes

from indexer.load.run import SourceFiles
from tests.conftest import ApiClient, Miles
from tests.service.search.calls import search
from tests.source_rows import active_rows

Row = dict[str, str]
ORG = "Provider Organization Name (Legal Business Name)"
LAST = "Provider Last Name (Legal Name)"
ZIP = "Provider Business Practice Location Address Postal Code"
TRAINEE = "390200000X"
CARDIOLOGY = ("207RC", "207RI0011X", "207RA0001X", "2080P0202X")


def codes(row: Row) -> list[str]:
    return [
        row[f"Healthcare Provider Taxonomy Code_{i}"]
        for i in range(1, 16)
        if row[f"Healthcare Provider Taxonomy Code_{i}"]
    ]


def primary_codes(row: Row) -> set[str]:
    """The taxonomy NPPES flags primary; a lone unflagged taxonomy is the primary one too."""
    flagged = {
        row[f"Healthcare Provider Taxonomy Code_{i}"]
        for i in range(1, 16)
        if row[f"Healthcare Provider Primary Taxonomy Switch_{i}"] == "Y"
    }
    return flagged or (set(codes(row)) if len(set(codes(row))) == 1 else set())


def zip_point(code: str) -> tuple[float, float]:
    [entry] = zipcodes.matching(code[:5])  # type: ignore[no-untyped-call]
    return float(entry["lat"]), float(entry["long"])


@pytest.fixture(scope="module")
def rows(sample_sources: SourceFiles) -> dict[str, Row]:
    return {row["NPI"]: row for row in active_rows(sample_sources.nppes_file)}


def npis(page: dict[str, Any]) -> list[str]:
    return [result["npis"][0] for result in page["results"]]


@pytest.mark.parametrize(
    ("query", "prefix", "zip_code"),
    [
        ("opthalmologist", "207W", "10013"),
        ("pediatrican", ("2080", "363LP0200X"), "60611"),
        ("dermatoligist", "207N", "10013"),
        ("cardiolgist", CARDIOLOGY, "60611"),
        ("obstetrics and gynecology", "207V", "10013"),
        ("Obstetrics & Gynecology", "207V", "78701"),
    ],
)
async def test_misspelt_and_connected_specialties_find_that_specialty(
    api: ApiClient,
    auth_header: dict[str, str],
    query: str,
    prefix: str | tuple[str, ...],
    zip_code: str,
) -> None:
    page = await search(api, auth_header, query=query, location=zip_code, pageSize=20)
    assert page["totalCount"] > 0, query
    for result in page["results"]:
        assert any(s["code"].startswith(prefix) for s in result["specialties"]), query
    [understood] = page["interpretedQuery"]["specialties"]
    assert understood["correctedFrom"] in (None, query.lower())


async def test_organisation_names_as_written_are_found_first(
    api: ApiClient, auth_header: dict[str, str], rows: dict[str, Row]
) -> None:
    count = Counter(row[ORG] for row in rows.values())
    written = [
        row
        for row in rows.values()
        if count[row[ORG]] == 1 and re.search(r"&|\b[A-Z]\.[A-Z]\.", row[ORG])
    ]
    assert len(written) >= 10
    for row in written[:: max(1, len(written) // 12)]:
        page = await search(api, auth_header, query=row[ORG], pageSize=3, facets=False)
        assert npis(page)[:1] == [row["NPI"]], row[ORG]


@pytest.mark.parametrize(
    ("query", "prefix"), [("ENT", "207Y"), ("ortho", "207X"), ("cardiologist", CARDIOLOGY)]
)
async def test_specialty_searches_rank_primary_then_practising_providers(
    api: ApiClient,
    auth_header: dict[str, str],
    rows: dict[str, Row],
    query: str,
    prefix: str | tuple[str, ...],
) -> None:
    page = await search(api, auth_header, query=query, location="10013", radius=10, pageSize=100)
    tiers = []
    for npi in npis(page):
        row = rows[npi]
        primary = any(code.startswith(prefix) for code in primary_codes(row))
        tiers.append((primary, TRAINEE not in codes(row)))
    assert tiers, query
    assert tiers == sorted(tiers, reverse=True), query
    assert tiers[0] == (True, True)


async def test_same_name_organisations_are_ordered_by_distance(
    api: ApiClient, auth_header: dict[str, str], rows: dict[str, Row]
) -> None:
    count = Counter(row[ORG] for row in rows.values() if row[ORG])
    name = next(org for org, n in count.most_common() if n >= 3)
    home = next(row[ZIP][:5] for row in rows.values() if row[ORG] == name)
    page = await search(api, auth_header, query=name, location=home, radius=100, pageSize=50)
    same = [r for r in page["results"] if r["organizationName"] == name]
    distances = [r["locations"][0]["distance"] for r in same]
    assert len(same) >= 2 and distances == sorted(distances), name


def _unique_surname(rows: dict[str, Row], zip_prefix: str) -> Row:
    count = Counter(row[LAST] for row in rows.values())
    return next(
        row
        for row in rows.values()
        if row["Entity Type Code"] == "1"
        and row[ZIP].startswith(zip_prefix)
        and count[row[LAST]] == 1
        and len(row[LAST]) >= 7
        and row[LAST].isalpha()
    )


async def test_a_name_found_only_far_away_says_how_far(
    api: ApiClient, auth_header: dict[str, str], rows: dict[str, Row], miles: Miles
) -> None:
    austin = _unique_surname(rows, "787")
    page = await search(api, auth_header, query=austin[LAST], location="10013")
    assert (page["totalCount"], page["results"]) == (0, [])
    explained = page["noResults"]
    assert explained["reason"] == "outside_radius"
    beyond = explained["beyondRadius"]
    assert beyond["count"] >= 1
    # the nearest match may be another provider (a name that differs by a letter), never
    # one farther than the provider we know matches
    assert 25 < beyond["nearestMiles"] <= miles(zip_point("10013"), zip_point(austin[ZIP])) + 5
    assert beyond["radiusMiles"] is None  # Austin is beyond the 100 miles a search allows


async def test_the_radius_offered_finds_the_match(
    api: ApiClient, auth_header: dict[str, str], rows: dict[str, Row]
) -> None:
    chicago = _unique_surname(rows, "606")
    where = {"location": {"lat": 41.3, "lng": -87.63}, "radius": 5}  # ~40 mi south of Chicago
    page = await search(api, auth_header, query=chicago[LAST], **where)
    radius = page["noResults"]["beyondRadius"]["radiusMiles"]
    assert radius is not None and radius <= 100
    found = await search(api, auth_header, query=chicago[LAST], **{**where, "radius": radius})
    assert chicago["NPI"] in npis(found)
    assert "noResults" not in found


async def test_a_word_that_matches_nothing_is_dropped_and_said(
    api: ApiClient, auth_header: dict[str, str], rows: dict[str, Row]
) -> None:
    someone = _unique_surname(rows, "100")
    page = await search(
        api, auth_header, query=f"{someone[LAST]} qzxwvk", location=someone[ZIP][:5]
    )
    assert someone["NPI"] in npis(page)
    assert page["interpretedQuery"]["droppedWords"] == ["qzxwvk"]


async def test_a_misspelt_name_that_finds_nothing_offers_the_name_that_exists(
    api: ApiClient, auth_header: dict[str, str], rows: dict[str, Row]
) -> None:
    someone = _unique_surname(rows, "606")
    misspelt = "Q" + someone[LAST][1:]  # a first letter no fuzzy name match forgives
    page = await search(api, auth_header, query=misspelt)
    assert page["totalCount"] == 0
    suggestion = page["noResults"]["didYouMean"]
    assert (await search(api, auth_header, query=suggestion))["totalCount"] > 0


async def test_a_specialty_repeated_for_two_licences_is_listed_once(
    api: ApiClient, auth_header: dict[str, str], rows: dict[str, Row]
) -> None:
    repeated = [row for row in rows.values() if len(codes(row)) != len(set(codes(row)))]
    for row in repeated[:5]:
        response = await api.get(f"/v2/providers/{row['NPI']}", headers=auth_header)
        listed = [s["code"] for s in (await response.json())["specialties"]]
        assert listed == list(dict.fromkeys(codes(row))), row["NPI"]


def _whole(asked: str, name: str | None) -> bool:
    """The asked name, whole, inside a name."""
    return name is not None and f" {' '.join(asked.split())} " in f" {' '.join(name.split())} "


def hospitals_with_providers(sources: SourceFiles, rows: dict[str, Row]) -> list[str]:
    """Names (three words or more) of the sample's hospitals that some active provider of the
    sample is tied to, read from the files: a Doctors & Clinicians affiliation with the
    hospital's CCN, or an organisation named with the hospital's name whole."""
    assert sources.hospitals is not None
    with sources.hospitals.open(encoding="utf-8", newline="") as handle:
        by_ccn = {r["Facility ID"].zfill(6): r["Facility Name"] for r in csv.DictReader(handle)}
    tied: set[str] = set()
    for path in sources.dac:
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                if row["NPI"] not in rows:
                    continue
                for column, value in row.items():
                    named = column.startswith(("hosp_afl_", "Hospital affiliation CCN"))
                    if named and "lbn" not in column and value:
                        tied.add(by_ccn.get(value.strip().zfill(6), ""))
    organisations = [row[ORG] for row in rows.values() if row[ORG]]
    tied |= {name for name in by_ccn.values() if any(_whole(name, o) for o in organisations)}
    return sorted(name for name in tied if len(name.split()) >= 3)


async def test_a_hospital_name_puts_its_own_providers_first(
    api: ApiClient, auth_header: dict[str, str], sample_sources: SourceFiles, rows: dict[str, Row]
) -> None:
    """Hospitals that share two of the asked words ("... Medical Center") never outrank a
    provider affiliated with the asked one (its name whole, e.g. "PIH Health Good Samaritan
    Hospital" for "Good Samaritan Hospital"), or the hospital itself. Every hospital the files
    tie a provider to is asked; each must find one of its own, first."""
    hospitals = hospitals_with_providers(sample_sources, rows)
    assert len(hospitals) >= 100, hospitals  # 108 of the 467 such hospitals of the sample
    missed, outranked = [], []
    for name in hospitals:
        page = await search(api, auth_header, query=name, pageSize=50, facets=False)
        has_it = [
            _whole(name, r["organizationName"])
            or any(_whole(name, h["name"]) for h in r["hospitalAffiliations"])
            for r in page["results"]
        ]
        if not any(has_it):
            missed.append(name)
        elif not has_it[0]:
            outranked.append(name)
    assert outranked == []
    assert missed == []


@pytest.mark.parametrize(
    ("location", "source"),
    [("St. Louis, MO", "geonames"), ("10013", "zipcodes"), ("40.71,-74.0", "coordinates")],
)
async def test_the_answer_says_which_data_placed_the_location(
    api: ApiClient, auth_header: dict[str, str], location: str, source: str
) -> None:
    page = await search(api, auth_header, location=location, pageSize=1, facets=False)
    assert page["interpretedQuery"]["location"]["source"] == source
