"""Care concepts read from the query (pure): concepts alone filter, beside a name they rank,
misspellings are forgiven, the client can turn them off, and NUCC's definitions read what the
curated list lacks. Expected codes come from the data files, not from the reader."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date
from typing import Any

import pytest

from service.search.care_concepts import CONCEPTS_FILE, definition_reading
from service.search.interpret import interpret
from service.search.models import SearchRequest
from service.search.query import build_search
from service.search.question import read_question
from service.search.vocabulary import vocabulary_suggestion

ENTRIES = {e["concept"]: e for e in json.loads(CONCEPTS_FILE.read_text())["concepts"]}
FORMS = {form for e in ENTRIES.values() for form in [e["concept"], *e["forms"]]}


def _weighted(concept: str, weight: str) -> set[str]:
    return {s["code"] for s in ENTRIES[concept]["specialties"] if s["weight"] == weight}


@pytest.mark.parametrize(
    ("query", "concept"),
    [
        ("knee pain", "knee pain"),
        ("my left knee hurts", "knee pain"),
        ("migraines", "migraine"),
        ("colonoskopy", "colonoscopy"),  # a misspelling the file does not list
        ("sprained ankle", "sprained ankle"),
        ("need a flu shot near me", "flu shot"),
        ("ptsd", "ptsd"),
        ("Tennis Elbow", "tennis elbow"),
        ("knee pain specialist", "knee pain"),
    ],
)
def test_a_concept_alone_filters_to_its_specialties(query: str, concept: str) -> None:
    reading = interpret(query)
    assert [m.concept.name for m in reading.concepts] == [concept]
    assert reading.concept_mode == "filter" and reading.text == ""
    first, also = reading.concept_codes
    assert set(first) == _weighted(concept, "first") and set(also) == _weighted(concept, "also")


@pytest.mark.parametrize(
    "query", ["Dr. Payne knee pain", "Smith back pain", "Dr. Hand", "Heart of Texas Clinic"]
)
def test_names_stay_names(query: str) -> None:
    """Beside a name or after "Dr." the words stay name words; a concept only ranks."""
    reading = interpret(query)
    assert reading.text and reading.concept_mode in (None, "boost")
    assert reading.specialty_mode != "filter"


def test_the_client_can_turn_concepts_off() -> None:
    assert interpret("knee pain", concepts=False).concepts == ()
    assert interpret("knee pain", concepts=False).text == "knee pain"
    body = build_search(
        read_question(SearchRequest(query="knee pain", concepts=False), date.today())
    )
    assert "primaryTaxonomyCodes" not in json.dumps(body)


def test_first_choices_rank_above_codes_that_also_treat() -> None:
    body: dict[str, Any] = build_search(
        read_question(SearchRequest(query="knee pain", location="02108"), date.today())
    )
    tiers = [
        (c["constant_score"]["boost"], c["constant_score"]["filter"])
        for c in body["query"]["bool"]["should"]
        if "constant_score" in c
    ]
    first = next(w for w, f in tiers if set(_codes(f)) == _weighted("knee pain", "first"))
    also = next(w for w, f in tiers if set(_codes(f)) == _weighted("knee pain", "also"))
    assert first > also > 3  # both above the closeness score (at most 3)
    allowed = _weighted("knee pain", "first") | _weighted("knee pain", "also")
    filters = json.dumps(body["query"]["bool"]["filter"])
    assert all(code in filters for code in allowed)


def _codes(clause: dict[str, Any]) -> list[str]:
    return [
        c
        for s in clause["bool"]["should"]
        for c in s.get("terms", {}).get("primaryTaxonomyCodes", [])
    ]


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("swallowing", "235Z00000X"),  # speech-language pathologist
        ("airways", "207RP1001X"),  # pulmonary disease
        ("spinal cord injury", "2081P0004X"),  # spinal cord injury medicine
        ("seizures", "2084E0001X"),  # epilepsy: also curated, the definitions agree
    ],
)
def test_nucc_definitions_read_what_the_curated_list_lacks(words: str, expected: str) -> None:
    reading = definition_reading(words)
    assert reading is not None and reading.source == "nucc_definition"
    assert expected in reading.first


@pytest.mark.parametrize("words", ["swallowing", "airways", "spinal cord injury"])
def test_the_fallback_cases_are_not_curated(words: str) -> None:
    assert words not in FORMS
    reading = interpret(words)
    assert reading.concepts == () and reading.fallback is not None


@pytest.mark.parametrize("words", ["smith", "burns", "accident", "address", "johnson", "hand"])
def test_the_fallback_is_used_only_when_confident(words: str) -> None:
    assert definition_reading(words) is None


@pytest.mark.parametrize(
    ("typed", "suggested"),
    [("kne pian", "knee pain"), ("chst pian", "chest pain"), ("sore thraot", "sore throat")],
)
def test_suggestions_come_from_the_vocabulary(typed: str, suggested: str) -> None:
    assert vocabulary_suggestion(typed) == suggested


@pytest.mark.parametrize("name", ["kyle park", "castro", "qarcia", "johnson"])
def test_names_are_not_turned_into_terms(name: str) -> None:
    assert vocabulary_suggestion(name) is None


def test_the_start_up_preload_loads_the_word_frequencies_the_first_query_needs() -> None:
    # A fresh interpreter: in this one another test may have loaded them already.
    script = (
        "import wordfreq\n"
        "from service.search import care_concepts\n"
        "care_concepts.preload()\n"
        "print(wordfreq.get_frequency_dict.cache_info().currsize)\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert int(loaded) >= 1
