"""POST /v2/providers/search against the loaded sample on a real Elasticsearch."""

from __future__ import annotations

import csv
import math
from collections import Counter

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from core.lookup_answers import stored_locations
from indexer.load.run import LoadReport, SourceFiles
from service.search.vocabulary import curated_terms
from tests.conftest import ApiClient, Miles
from tests.service.search.calls import LOWER_MANHATTAN, all_results, search
from tests.source_rows import active_rows

EDGE_MILES = 0.05  # geo precision at the radius edge


@pytest.fixture(scope="module")
async def stored_points(
    es: AsyncElasticsearch, loaded_sample: tuple[IndexNames, LoadReport]
) -> list[tuple[str, float, float]]:
    names, _ = loaded_sample
    response = await es.search(index=names.alias("providers"), size=10_000)
    addresses = [
        (location["npi"], location["address"])
        for hit in response["hits"]["hits"]
        for location in stored_locations(hit["_source"])
    ]
    return [
        (npi, lat, lng)
        for npi, address in addresses
        if (lat := address["lat"]) is not None and (lng := address["lng"]) is not None
    ]


@pytest.mark.parametrize(
    ("point", "radius"),
    [
        (LOWER_MANHATTAN, 1),
        (LOWER_MANHATTAN, 3),
        ({"lat": 30.2672, "lng": -97.7431}, 10),
        ({"lat": 41.8781, "lng": -87.6298}, 5),
        ({"lat": 34.05, "lng": -118.30}, 4),
        ({"lat": 25.7617, "lng": -80.1918}, 25),
    ],
)
async def test_results_are_exactly_the_providers_within_the_radius(
    api: ApiClient,
    auth_header: dict[str, str],
    stored_points: list[tuple[str, float, float]],
    point: dict[str, float],
    radius: float,
    miles: Miles,
) -> None:
    results = await all_results(api, auth_header, location=point, radius=radius)
    returned = [r["npis"][0] for r in results]
    assert len(returned) == len(set(returned)), "a provider appears twice"
    nearest: dict[str, float] = {}
    for npi, lat, lng in stored_points:
        d = miles((point["lat"], point["lng"]), (lat, lng))
        nearest[npi] = min(d, nearest.get(npi, math.inf))
    inside = {npi for npi, d in nearest.items() if d <= radius - EDGE_MILES}
    outside = {npi for npi, d in nearest.items() if d > radius + EDGE_MILES}
    assert inside, "the point should have providers around it"
    assert inside <= set(returned)
    assert not outside & set(returned)
    for result in results:
        distances = [loc["distance"] for loc in result["locations"]]
        assert distances == sorted(distances)
        assert all(d <= radius + EDGE_MILES for d in distances)


async def test_distance_sort_is_monotonic_and_distances_are_true(
    api: ApiClient, auth_header: dict[str, str], miles: Miles
) -> None:
    results = await all_results(
        api, auth_header, query="medicine", location=LOWER_MANHATTAN, radius=5, sort="distance"
    )
    assert len(results) > 20
    firsts = [r["locations"][0]["distance"] for r in results]
    assert firsts == sorted(firsts)
    for result in results:
        for location in result["locations"]:
            address = location["address"]
            here = (LOWER_MANHATTAN["lat"], LOWER_MANHATTAN["lng"])
            expected = miles(here, (address["lat"], address["lng"]))
            assert location["distance"] == pytest.approx(expected, abs=0.02)


@pytest.fixture(scope="module")
def individuals(sample_sources: SourceFiles) -> list[dict[str, str]]:
    rows = [r for r in active_rows(sample_sources.nppes_file) if r["Entity Type Code"] == "1"]
    names = Counter((r["Provider First Name"], r["Provider Last Name (Legal Name)"]) for r in rows)
    unique = [
        r
        for r in rows
        if names[(r["Provider First Name"], r["Provider Last Name (Legal Name)"])] == 1
        and len(r["Provider Last Name (Legal Name)"]) >= 6
        and r["Provider Last Name (Legal Name)"].isalpha()
    ]
    return unique[::37][:12]


async def test_exact_full_name_comes_first(
    api: ApiClient, auth_header: dict[str, str], individuals: list[dict[str, str]]
) -> None:
    for row in individuals:
        name = f"{row['Provider First Name']} {row['Provider Last Name (Legal Name)']}"
        page = await search(api, auth_header, query=name.title(), pageSize=5)
        assert page["results"][0]["npis"] == [row["NPI"]], name


async def test_one_typo_name_is_in_the_top_three(
    api: ApiClient, auth_header: dict[str, str], individuals: list[dict[str, str]]
) -> None:
    for row in individuals:
        last = row["Provider Last Name (Legal Name)"]
        middle = len(last) // 2
        typo = last[:middle] + ("A" if last[middle] != "A" else "E") + last[middle + 1 :]
        page = await search(
            api, auth_header, query=f"{row['Provider First Name']} {typo}", pageSize=3
        )
        assert row["NPI"] in [r["npis"][0] for r in page["results"]], typo


async def test_organisation_name_finds_it(
    api: ApiClient, auth_header: dict[str, str], sample_sources: SourceFiles
) -> None:
    rows = [r for r in active_rows(sample_sources.nppes_file) if r["Entity Type Code"] == "2"]
    counts = Counter(r["Provider Organization Name (Legal Business Name)"] for r in rows)
    picked = [r for r in rows if counts[r["Provider Organization Name (Legal Business Name)"]] == 1]
    for row in picked[::41][:10]:
        name = row["Provider Organization Name (Legal Business Name)"]
        page = await search(api, auth_header, query=name, pageSize=3)
        assert row["NPI"] in [r["npis"][0] for r in page["results"]], name


async def test_every_vocabulary_term_returns_only_that_specialty(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    found_any = Counter[str]()
    for key, concept in curated_terms().items():
        page = await search(api, auth_header, query=" ".join(key), pageSize=10, facets=False)
        for result in page["results"]:
            codes = [s["code"] for s in result["specialties"]]
            assert any(concept.matches(code) for code in codes), (key, result["npis"])
        found_any[concept.label] += page["totalCount"]
    for label in (
        "Cardiology",
        "Pediatrics",
        "Obstetrics & Gynecology",
        "Dermatology",
        "Primary care",
        "Orthopaedic Surgery",
        "Eye care",
        "Psychiatry",
    ):
        assert found_any[label] > 0, label


async def test_pages_do_not_overlap_and_cover_the_result(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    where = {"location": LOWER_MANHATTAN, "radius": 1.5, "facets": False}
    expected: list[str] = []
    for offset in (0, 100):
        page = await search(api, auth_header, pageSize=100, offset=offset, **where)
        expected.extend(r["npis"][0] for r in page["results"])
    total = page["totalCount"]
    assert 100 < total <= 200 and len(expected) == total
    by_offset: list[str] = []
    for offset in range(0, total, 7):
        page = await search(api, auth_header, pageSize=7, offset=offset, **where)
        assert page["totalCount"] == total
        by_offset.extend(r["npis"][0] for r in page["results"])
    assert by_offset == expected
    by_cursor = [r["npis"][0] for r in await all_results(api, auth_header, **where)]
    assert by_cursor == expected


async def test_facets_only_when_asked(api: ApiClient, auth_header: dict[str, str]) -> None:
    page = await search(api, auth_header, location=LOWER_MANHATTAN, radius=10, pageSize=1)
    assert "facets" not in page and page["totalCount"] > 0


async def test_facets_count_the_result(api: ApiClient, auth_header: dict[str, str]) -> None:
    page = await search(
        api, auth_header, location=LOWER_MANHATTAN, radius=10, pageSize=1, facets=True
    )
    facets = page["facets"]
    gender_total = sum(b["count"] for b in facets["gender"])
    assert 0 < gender_total <= page["totalCount"]
    bands = {b["value"]: b["count"] for b in facets["distance"]}
    assert list(bands) == ["0-5", "5-10", "10-25", "25+"]
    assert bands["0-5"] > 0 and bands["25+"] == 0
    assert facets["specialty"][0]["count"] >= facets["specialty"][-1]["count"]


@pytest.mark.parametrize("radius", [3.0, 10.0, 30.0])
async def test_distance_facet_counts_providers_with_an_in_radius_location_in_each_band(
    api: ApiClient,
    auth_header: dict[str, str],
    stored_points: list[tuple[str, float, float]],
    radius: float,
    miles: Miles,
) -> None:
    page = await search(
        api, auth_header, location=LOWER_MANHATTAN, radius=radius, pageSize=1, facets=True
    )
    bands = {b["value"]: b["count"] for b in page["facets"]["distance"]}
    here = (LOWER_MANHATTAN["lat"], LOWER_MANHATTAN["lng"])
    for key, low, high in [("0-5", 0, 5), ("5-10", 5, 10), ("10-25", 10, 25), ("25+", 25, None)]:
        top = min(high, radius) if high is not None else radius
        surely, maybe = set(), set()  # a location this close to an edge may fall either side
        for npi, lat, lng in stored_points:
            d = miles(here, (lat, lng))
            if low + EDGE_MILES < d < top - EDGE_MILES:
                surely.add(npi)
            if low - EDGE_MILES <= d <= top + EDGE_MILES:
                maybe.add(npi)
        assert len(surely) <= bands[key] <= len(maybe), (key, radius)
    assert bands["0-5"] > 0 and sum(bands.values()) >= page["totalCount"]


async def test_interpreted_query_echoes_what_was_understood(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    page = await search(api, auth_header, query="Dr. Smith cardiologist", location="Austin, TX")
    understood = page["interpretedQuery"]
    assert understood["freeText"] == "smith"
    assert understood["specialties"][0]["label"] == "Cardiology"
    assert understood["location"]["resolvedFrom"] == "city"
    assert understood["radiusMiles"] == 25


@pytest.fixture(scope="module")
def hospital_affiliated(sample_sources: SourceFiles) -> list[str]:
    """NPIs that the 2017 Physician Compare sample links to a hospital."""
    dac = next(p for p in sample_sources.dac if "physician_compare" in p.name)
    with open(dac, encoding="utf-8", newline="") as handle:
        return sorted({r["NPI"] for r in csv.DictReader(handle) if r["Hospital affiliation LBN 1"]})


async def test_a_name_and_a_hospital_in_one_query(
    api: ApiClient, auth_header: dict[str, str], hospital_affiliated: list[str]
) -> None:
    """'Dr. Johnson Mount Sinai' style: a last name plus an affiliated hospital's name."""
    checked = 0
    for npi in hospital_affiliated:
        response = await api.get(f"/v2/providers/{npi}", headers=auth_header)
        if response.status != 200:
            continue  # a DAC NPI that the NPPES sample lacks
        provider = await response.json()
        hospital = next((h["name"] for h in provider["hospitalAffiliations"] if h["name"]), None)
        if not hospital or not provider["lastName"]:
            continue
        query = f"Dr. {provider['lastName'].title()} {' '.join(hospital.split()[:3]).title()}"
        page = await search(api, auth_header, query=query, pageSize=3, facets=False)
        assert npi in [r["npis"][0] for r in page["results"]], query
        checked += 1
    assert checked >= 5
