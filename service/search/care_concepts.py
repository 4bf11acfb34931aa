"""What people need care for -> the specialties that treat it (pure).

Conditions, symptoms, body parts, procedures, tests and visit reasons ("knee pain", "flu shot",
"colonoscopy") come from the curated ``concepts.json`` (provenance and review rule in
CONCEPTS.md): each names the NUCC codes a patient would book first and those that also treat
it. Where the curated list has nothing, ``definition_reading`` ranks what NUCC's definitions
say each individual provider's specialty treats (the sentences about diagnosis, treatment,
care, disorders ...) against the words (BM25), and answers only when confident: every word is
one those sentences use, one word at least is a specialised one (rare in everyday English, by
wordfreq: "accident" or "address" are not), and the best code scores clearly.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from rank_bm25 import BM25Okapi
from wordfreq import zipf_frequency

from core.text import tokens
from service.search.terms import Key, key_of

CONCEPTS_FILE = Path(__file__).with_name("concepts.json")
SPECIALTY_NAMES_FILE = Path(__file__).with_name("specialty_names.json")
Source = Literal["curated", "nucc_definition"]
# Words of the definitions that say nothing about what a specialty treats.
_DEFINITION_STOPWORDS = frozenset(
    {
        *("a", "an", "the", "of", "and", "or", "in", "to", "for", "with", "is", "are", "by"),
        *("on", "as", "be", "who", "which", "that", "this", "from", "at", "its", "it", "their"),
        *("other", "also", "may", "such", "not", "all", "any", "has", "have", "his", "her"),
        *("he", "she", "they", "these", "those", "into"),
    }
)
# Sentences of a definition that say what the specialty treats, not how it is organised.
_CLINICAL = re.compile(
    r"treat|diagnos|disease|disorder|condition|injur|care of|prevent|manag|surg|therap"
    r"|rehabilit|symptom|illness|infection|problem|dysfunction|impair"
)
_SENTENCE_END = re.compile(r"(?<=[.;])\s+")
SPECIALISED_ZIPF = 3.9  # everyday English words are above (zipf 4: once per 100,000 words)
CONFIDENT_SCORE = 4.0  # BM25 score of the best code; below it the reading is a guess
FIRST_SHARE = 0.75  # codes scoring this share of the best are first choices
ALSO_SHARE = 0.45  # ... this share: they also treat it
MAX_CODES = 8


@dataclass(frozen=True, slots=True)
class CareConcept:
    name: str
    kind: str  # condition | symptom | body_part | procedure | test | visit_reason
    first: tuple[str, ...]  # NUCC codes a patient books first
    also: tuple[str, ...]  # codes that also treat it
    source: Source

    @property
    def codes(self) -> tuple[str, ...]:
        return self.first + self.also


@cache
def curated_concepts() -> dict[Key, CareConcept]:
    """Every form people type (as index tokens) -> its concept."""
    data = json.loads(CONCEPTS_FILE.read_text(encoding="utf-8"))
    table: dict[Key, CareConcept] = {}
    for entry in data["concepts"]:
        weights = entry["specialties"]
        concept = CareConcept(
            name=entry["concept"],
            kind=entry["kind"],
            first=tuple(s["code"] for s in weights if s["weight"] == "first"),
            also=tuple(s["code"] for s in weights if s["weight"] == "also"),
            source="curated",
        )
        for form in [entry["concept"], *entry["forms"]]:
            table.setdefault(key_of(form), concept)
    table.pop((), None)
    return table


@dataclass(frozen=True, slots=True)
class _Definitions:
    codes: list[str]
    ranking: BM25Okapi
    words: frozenset[str]


def _definition_words(text: str) -> list[str]:
    return [t for t in tokens(text) if t not in _DEFINITION_STOPWORDS]


@cache
def _definitions() -> _Definitions:
    entries = json.loads(SPECIALTY_NAMES_FILE.read_text(encoding="utf-8"))["definitions"]
    codes, documents = [], []
    for code in sorted(entries):
        sentences = _SENTENCE_END.split(entries[code]["definition"])
        clinical = [s for s in sentences if _CLINICAL.search(s.lower())]
        if clinical:
            codes.append(code)
            documents.append(_definition_words(" ".join(clinical)))
    words = frozenset(word for document in documents for word in document)
    return _Definitions(codes, BM25Okapi(documents), words)


def definition_reading(text: str) -> CareConcept | None:
    """The specialties whose NUCC definitions best match ``text``, when confidently so."""
    words = _definition_words(text)
    table = _definitions()
    if not words or any(word not in table.words for word in words):
        return None
    if all(zipf_frequency(word, "en") >= SPECIALISED_ZIPF for word in words):
        return None
    scores = table.ranking.get_scores(words)
    ranked = sorted(range(len(table.codes)), key=lambda i: (-scores[i], table.codes[i]))
    best = float(scores[ranked[0]])
    if best < CONFIDENT_SCORE:
        return None
    kept = [i for i in ranked[:MAX_CODES] if scores[i] >= ALSO_SHARE * best]
    return CareConcept(
        name=" ".join(words),
        kind="condition",
        first=tuple(table.codes[i] for i in kept if scores[i] >= FIRST_SHARE * best),
        also=tuple(table.codes[i] for i in kept if scores[i] < FIRST_SHARE * best),
        source="nucc_definition",
    )


def preload() -> None:
    curated_concepts()
    _definitions()
    zipf_frequency("care", "en")  # loads wordfreq's English list (~1 s), else the first query pays
