"""Query interpretation and the vocabulary (pure)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from service.search.interpret import VOCABULARY_FILE, fold, interpret, vocabulary, words

NUCC_FILE = Path(__file__).resolve().parents[3] / "data" / "sample" / "nucc_taxonomy_251.csv"


def _nucc_codes() -> set[str]:
    with open(NUCC_FILE, encoding="utf-8", newline="") as handle:
        return {row["Code"] for row in csv.DictReader(handle)}


def test_vocabulary_has_at_least_60_terms_all_mapped_to_real_nucc_codes() -> None:
    concepts = json.loads(VOCABULARY_FILE.read_text())["concepts"]
    terms = [term for concept in concepts for term in concept["terms"]]
    assert len(terms) >= 60
    assert len(set(terms)) == len(terms), "a term appears twice"
    known = _nucc_codes()
    for concept in concepts:
        assert concept["codes"], concept["label"]
        for code in concept["codes"]:
            if code.endswith("*"):
                assert any(k.startswith(code[:-1]) for k in known), (concept["label"], code)
            else:
                assert code in known, f"{concept['label']}: {code} not in the NUCC code set"


@pytest.mark.parametrize(
    ("query", "label"),
    [
        ("cardio", "Cardiology"),
        ("Cardiologist", "Cardiology"),
        ("heart doctor", "Cardiology"),
        ("peds", "Pediatrics"),
        ("pediatrician", "Pediatrics"),
        ("children's doctor", "Pediatrics"),
        ("obgyn", "Obstetrics & Gynecology"),
        ("OB-GYN", "Obstetrics & Gynecology"),
        ("ob/gyn", "Obstetrics & Gynecology"),
        ("ENT", "Otolaryngology (ENT)"),
        ("derm", "Dermatology"),
        ("ortho", "Orthopaedic Surgery"),
        ("GI", "Gastroenterology"),
        ("PCP", "Primary care"),
        ("eye doctor", "Eye care"),
        ("orthopedic surgeon", "Orthopaedic Surgery"),
    ],
)
def test_terms_map_to_concepts(query: str, label: str) -> None:
    result = interpret(query)
    assert [m.label for m in result.specialties] == [label]
    assert result.text == ""
    assert result.taxonomy_codes


def test_longest_term_wins_and_the_rest_is_free_text() -> None:
    result = interpret("Dr. Maria Peña physical therapist near me")
    assert [m.label for m in result.specialties] == ["Physical Therapy"]
    assert result.text == "maria pena"


def test_accent_folding_and_punctuation() -> None:
    assert fold("Peña Muñoz Ångström") == "Pena Munoz Angstrom"
    assert words("O'Brien-Smith, M.D.") == ["obrien", "smith", "m", "d"]


def test_query_syntax_is_just_words() -> None:
    result = interpret('"*:*" OR (name:x) {"a": 1} [y]')
    assert result.specialties == ()
    assert result.text == "or name x 1 y"  # "a" is a stopword


def test_every_vocabulary_term_is_recognised_alone() -> None:
    for key, concept in vocabulary().items():
        result = interpret(" ".join(key))
        assert [m.label for m in result.specialties] == [concept.label], key
