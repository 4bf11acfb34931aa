"""Query interpretation and the vocabulary (pure)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from core.text import fold, tokens
from service.search.interpret import interpret
from service.search.vocabulary import VOCABULARY_FILE, allowed_edits, curated_terms

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
    assert tokens("O'Brien-Smith, M.D.") == ["obrien", "smith", "md"]


def test_query_syntax_is_just_words() -> None:
    result = interpret('"*:*" OR (name:x) {"a": 1} [y]')
    assert result.specialties == ()
    assert result.text == "or name x 1 y"  # "a" is a connector


def test_every_vocabulary_term_is_recognised_alone() -> None:
    for key, concept in curated_terms().items():
        result = interpret(" ".join(key))
        assert [m.label for m in result.specialties] == [concept.label], key


@pytest.mark.parametrize(
    ("query", "label", "written"),
    [
        ("opthalmologist", "Ophthalmology", "opthalmologist"),
        ("pediatrican", "Pediatrics", "pediatrican"),
        ("dermatoligist", "Dermatology", "dermatoligist"),
        ("cardiolgist", "Cardiology", "cardiolgist"),
        ("Gastroenterolgy", "Gastroenterology", "gastroenterolgy"),
        ("internal medecine", "Internal Medicine", "internal medecine"),
        ("nuerologist", "Neurology", "nuerologist"),
        ("dentits", "Dentistry", "dentits"),
        ("farmacist", "Pharmacist", "farmacist"),
        ("dematologist", "Dermatology", "dematologist"),
    ],
)
def test_misspelt_specialties_are_corrected_and_say_so(
    query: str, label: str, written: str
) -> None:
    result = interpret(query)
    [match] = result.specialties
    assert (match.label, match.corrected_from) == (label, written)
    assert result.text == ""


@pytest.mark.parametrize("surname", ["Castro", "Carrillo", "Ortiz", "Dermody", "Pedersen"])
def test_surnames_near_a_specialty_word_stay_names(surname: str) -> None:
    result = interpret(surname)
    assert result.specialties == ()
    assert result.text == surname.lower()


def test_allowed_edits_grow_with_length() -> None:
    assert [allowed_edits("x" * n) for n in (4, 6, 7, 8, 9, 15)] == [0, 0, 1, 1, 2, 2]


@pytest.mark.parametrize(
    "query",
    ["obstetrics and gynecology", "Obstetrics & Gynecology", "ob-gyn", "OB/GYN"],
)
def test_connectors_never_become_required_words(query: str) -> None:
    result = interpret(query)
    assert [m.label for m in result.specialties] == ["Obstetrics & Gynecology"]
    assert result.text == ""


def test_an_organisation_name_keeps_its_words_as_written() -> None:
    result = interpret("MICHAEL A RASCATI O.D., P.A.")
    assert result.text == "michael rascati od pa"
    assert result.name_text == "michael a rascati od pa"
    assert interpret("Holland Obstetrics & Gynecology").name_text == (
        "holland obstetrics gynecology"
    )


@pytest.mark.parametrize(
    ("query", "language", "mode", "text"),
    [
        ("spanish", "Spanish", "filter", ""),
        ("habla español", "Spanish", "filter", ""),
        ("Vietnamese pediatrician", "Vietnamese", "filter", ""),
        ("spanish speaking Smith", "Spanish", "filter", "smith"),
        ("John English", "English", "boost", "john english"),
    ],
)
def test_language_words_filter_or_rank(query: str, language: str, mode: str, text: str) -> None:
    result = interpret(query)
    assert [m.language for m in result.languages] == [language]
    assert result.language_mode == mode
    assert result.text == text


def test_a_title_makes_a_language_word_a_name() -> None:
    result = interpret("Dr. English")
    assert result.languages == ()
    assert result.text == "english"


def test_nucc_names_are_understood() -> None:
    with open(NUCC_FILE, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    named = {r["Code"] for r in rows if "Phlebology" in (r["Classification"], r["Specialization"])}
    [match] = interpret("phlebology").specialties
    assert set(match.codes) == named
    [student] = interpret(
        "student in an organized health care education training program"
    ).specialties
    assert student.codes == ("390200000X",)


def test_dropping_words_keeps_the_rest() -> None:
    reading = interpret("Smith Zzyzx cardiologist").without(["zzyzx"])
    assert reading.text == "smith"
    assert reading.dropped == ("zzyzx",)
