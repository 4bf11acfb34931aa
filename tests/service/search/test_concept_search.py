"""Searching by what is wrong, on the sample in a real Elasticsearch: concept searches return the
specialties that treat it, first choices first; names that are also medical words still find
the person; misspelt medical words get a term, never a name, as a suggestion; NUCC's
definitions read what the curated list lacks. Primary specialties come from the NPPES file."""

from __future__ import annotations

import json
from typing import Any

import pytest

from indexer.load.run import SourceFiles
from service.search.care_concepts import CONCEPTS_FILE
from service.search.vocabulary import medical_words
from tests.conftest import ApiClient
from tests.service.search.calls import search
from tests.service.search.test_search_quality import primary_codes
from tests.source_rows import active_rows

ENTRIES = {e["concept"]: e for e in json.loads(CONCEPTS_FILE.read_text())["concepts"]}
PLACES = ["10013", "60606", "78701", "33131"]  # the sample's metros
LAST = "Provider Last Name (Legal Name)"
ZIP = "Provider Business Practice Location Address Postal Code"


def _weighted(concept: str) -> tuple[set[str], set[str]]:
    specialties = ENTRIES[concept]["specialties"]
    first = {s["code"] for s in specialties if s["weight"] == "first"}
    return first, {s["code"] for s in specialties if s["weight"] == "also"}


@pytest.fixture(scope="module")
def primary(sample_sources: SourceFiles) -> dict[str, set[str]]:
    return {row["NPI"]: primary_codes(row) for row in active_rows(sample_sources.nppes_file)}


def _tier(codes: set[str], first: set[str], also: set[str]) -> int:
    return 0 if codes & first else 1 if codes & also else 2


@pytest.mark.parametrize(
    ("query", "concept"),
    [
        ("knee pain", "knee pain"),
        ("chest pain", "chest pain"),
        ("acne", "acne"),
        ("hearing loss", "hearing loss"),
        ("pregnancy", "pregnancy"),
        ("migraines", "migraine"),
        ("annual physical", "annual physical"),
        ("anxiety", "anxiety"),
        ("back pain", "back pain"),
    ],
)
async def test_concept_searches_rank_first_choices_first(
    api: ApiClient,
    auth_header: dict[str, str],
    primary: dict[str, set[str]],
    query: str,
    concept: str,
) -> None:
    first, also = _weighted(concept)
    found_any = False
    for place in PLACES:
        page = await search(api, auth_header, query=query, location=place, pageSize=30)
        read = page["interpretedQuery"]["concepts"]
        assert [c["concept"] for c in read] == [concept] and read[0]["source"] == "curated"
        tiers = [_tier(primary[r["npis"][0]], first, also) for r in page["results"]]
        assert tiers == sorted(tiers), (place, tiers)  # first choices, then also, then others
        for result in page["results"]:  # everyone treats it, by one of their specialties
            assert {s["code"] for s in result["specialties"]} & (first | also)
        found_any = found_any or bool(tiers and tiers[0] == 0)
    assert found_any, query


async def test_names_that_are_medical_words_still_find_the_person(
    api: ApiClient, auth_header: dict[str, str], sample_sources: SourceFiles
) -> None:
    medical = medical_words()
    people = [
        row
        for row in active_rows(sample_sources.nppes_file)
        if row["Entity Type Code"] == "1" and row[LAST].lower() in medical and row[ZIP]
    ]
    assert len(people) >= 3
    for row in people[:10]:
        page = await search(
            api, auth_header, query=f"Dr. {row[LAST]}", location=row[ZIP][:5], pageSize=50
        )
        assert row["NPI"] in {r["npis"][0] for r in page["results"]}, row[LAST]


async def test_a_misspelt_medical_phrase_is_offered_the_term_not_a_name(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    page = await search(api, auth_header, query="kne pian", location="10013")
    if page["totalCount"] == 0:
        assert page["noResults"]["didYouMean"] == "knee pain"
    fixed = await search(api, auth_header, query="knee pain", location="10013")
    assert fixed["totalCount"] > 0


async def test_what_the_list_lacks_is_read_from_nucc_definitions(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    answered: list[dict[str, Any]] = []
    for place in PLACES:
        page = await search(api, auth_header, query="swallowing", location=place, radius=50)
        if page["results"]:
            answered.append(page)
    assert answered
    for page in answered:
        [concept] = page["interpretedQuery"]["concepts"]
        assert concept["source"] == "nucc_definition"
        assert "235Z00000X" in concept["firstChoice"]
        treating = set(concept["firstChoice"]) | set(concept["alsoTreats"])
        for result in page["results"]:
            assert {s["code"] for s in result["specialties"]} & treating


async def test_the_concept_reading_can_be_turned_off(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    page = await search(api, auth_header, query="knee pain", location="10013", concepts=False)
    read = page["interpretedQuery"]
    assert read["concepts"] == [] and read["conceptMode"] is None
    assert set(read["freeText"].split()) | set(read["droppedWords"]) == {"knee", "pain"}
