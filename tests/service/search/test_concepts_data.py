"""The review rule of the curated concept list (service/search/CONCEPTS.md), checked on the file
against the bundled NUCC code set, not against the code that reads it."""

from __future__ import annotations

import csv
import json
from collections import Counter
from typing import Any

import pytest

from core.text import tokens
from tests.conftest import SAMPLE_DIR

CONCEPTS = SAMPLE_DIR.parents[1] / "service" / "search" / "concepts.json"
KINDS = {"condition", "symptom", "body_part", "procedure", "test", "visit_reason"}


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(CONCEPTS.read_text(encoding="utf-8"))
    return loaded


@pytest.fixture(scope="module")
def nucc_codes() -> set[str]:
    with (SAMPLE_DIR / "nucc_taxonomy_251.csv").open(encoding="utf-8-sig") as handle:
        return {row["Code"] for row in csv.DictReader(handle)}


def test_provenance_and_review_rule_are_stated(data: dict[str, Any]) -> None:
    assert data["provenance"] and data["review"] and data["nuccRelease"] == "25.1"


def test_several_hundred_concepts_of_every_kind(data: dict[str, Any]) -> None:
    concepts = data["concepts"]
    assert len(concepts) >= 250
    assert {c["kind"] for c in concepts} <= KINDS
    assert min(Counter(c["kind"] for c in concepts).values()) >= 5
    assert sum(len(c["forms"]) for c in concepts) >= 4 * len(concepts)


def test_every_code_is_a_nucc_code_and_every_concept_has_a_first_choice(
    data: dict[str, Any], nucc_codes: set[str]
) -> None:
    for concept in data["concepts"]:
        weights = [s["weight"] for s in concept["specialties"]]
        assert "first" in weights, concept["concept"]
        assert set(weights) <= {"first", "also"}
        codes = [s["code"] for s in concept["specialties"]]
        assert set(codes) <= nucc_codes, concept["concept"]
        assert len(codes) == len(set(codes)), concept["concept"]


def test_a_form_belongs_to_one_concept_and_is_written_plainly(data: dict[str, Any]) -> None:
    owner: dict[tuple[str, ...], str] = {}
    for concept in data["concepts"]:
        for form in [concept["concept"], *concept["forms"]]:
            assert form == form.strip().lower() and form, form
            key = tuple(tokens(form))
            assert owner.setdefault(key, concept["concept"]) == concept["concept"], form
