"""The review rule of the curated concept list (service/search/CONCEPTS.md), checked on the file
against the bundled NUCC code set and the specialty vocabulary, not against the code that reads
it. Pure: no Elasticsearch."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from core.text import tokens
from tests.conftest import SAMPLE_DIR

SEARCH_DIR = SAMPLE_DIR.parents[1] / "service" / "search"
CONCEPTS = SEARCH_DIR / "concepts.json"
VOCABULARY = SEARCH_DIR / "vocabulary.json"
NUCC = SAMPLE_DIR / "nucc_taxonomy_251.csv"
KINDS = {"condition", "symptom", "body_part", "procedure", "test", "visit_reason"}
WEIGHTS = {"first", "also"}
# Words a query loses before terms are matched (service/search/vocabulary.py CONNECTORS): two
# forms that differ only by them are one form ("hand foot and mouth", "hand foot mouth").
CONNECTORS = frozenset({"and", "of", "the", "with", "for", "at", "in", "a", "an", "to", "on"})
MIN_CONCEPTS = 300

Key = tuple[str, ...]


def _key(form: str) -> Key:
    return tuple(t for t in tokens(form) if t not in CONNECTORS)


def _load(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return _load(CONCEPTS)


@pytest.fixture(scope="module")
def concepts(data: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = data["concepts"]
    return found


@pytest.fixture(scope="module")
def nucc_codes() -> set[str]:
    with NUCC.open(encoding="utf-8-sig", newline="") as handle:
        return {row["Code"] for row in csv.DictReader(handle)}


def _forms(concept: dict[str, Any]) -> list[str]:
    return [concept["concept"], *concept["forms"]]


def test_the_header_states_provenance_release_and_review_rule(data: dict[str, Any]) -> None:
    assert isinstance(data["provenance"], str) and data["provenance"].strip()
    assert isinstance(data["review"], str) and "NUCC Definition" in data["review"]
    assert data["nuccRelease"] == "25.1" and NUCC.name == "nucc_taxonomy_251.csv"
    assert isinstance(data["version"], int) and isinstance(data["updated"], str)
    assert set(data["kinds"]) == KINDS


def test_every_concept_has_the_shape_the_reader_expects(concepts: list[dict[str, Any]]) -> None:
    for concept in concepts:
        assert set(concept) == {"concept", "kind", "forms", "specialties"}, concept
        assert isinstance(concept["concept"], str) and concept["concept"], concept
        assert isinstance(concept["forms"], list), concept["concept"]
        assert all(isinstance(form, str) for form in concept["forms"]), concept["concept"]
        assert isinstance(concept["specialties"], list) and concept["specialties"]
        for specialty in concept["specialties"]:
            assert set(specialty) == {"code", "weight"}, concept["concept"]
            assert specialty["weight"] in WEIGHTS, concept["concept"]


def test_several_hundred_concepts_of_every_kind(concepts: list[dict[str, Any]]) -> None:
    assert len(concepts) >= MIN_CONCEPTS
    kinds = Counter(c["kind"] for c in concepts)
    assert set(kinds) == KINDS, kinds
    assert min(kinds.values()) >= 10, kinds
    assert sum(len(c["forms"]) for c in concepts) >= 4 * len(concepts)


def test_the_file_is_sorted_by_concept_and_names_are_unique(
    concepts: list[dict[str, Any]],
) -> None:
    names = [c["concept"] for c in concepts]
    assert names == sorted(names)
    assert len(names) == len(set(names))


def test_every_code_is_a_nucc_code(concepts: list[dict[str, Any]], nucc_codes: set[str]) -> None:
    unknown = [
        (c["concept"], s["code"])
        for c in concepts
        for s in c["specialties"]
        if s["code"] not in nucc_codes
    ]
    assert not unknown


def test_every_concept_has_a_first_choice_and_each_code_once(
    concepts: list[dict[str, Any]],
) -> None:
    for concept in concepts:
        weights = [s["weight"] for s in concept["specialties"]]
        assert "first" in weights, concept["concept"]
        codes = [s["code"] for s in concept["specialties"]]
        assert len(codes) == len(set(codes)), concept["concept"]


def test_forms_are_written_plainly(concepts: list[dict[str, Any]]) -> None:
    for concept in concepts:
        for form in _forms(concept):
            assert form and form == form.strip() and form == form.lower(), form
            assert "  " not in form and form.isascii(), form  # accents folded, as typed
            assert _key(form), form


def test_a_form_belongs_to_one_concept_only(concepts: list[dict[str, Any]]) -> None:
    owner: dict[Key, str] = {}
    clashes = []
    for concept in concepts:
        for form in dict.fromkeys(_key(f) for f in _forms(concept)):
            if owner.setdefault(form, concept["concept"]) != concept["concept"]:
                clashes.append((" ".join(form), owner[form], concept["concept"]))
    assert not clashes


def test_forms_that_are_specialty_terms_are_listed_as_intended(
    data: dict[str, Any], concepts: list[dict[str, Any]]
) -> None:
    """A form that is also a term of vocabulary.json is read as the specialty (the specialty
    reading comes first): allowed only where the header says it is meant."""
    terms = {_key(t) for entry in _load(VOCABULARY)["concepts"] for t in entry["terms"]}
    shared = {form for c in concepts for form in _forms(c) if _key(form) in terms}
    assert shared == set(data["sharedWithVocabulary"])
