"""Query interpretation (pure): accent folding, and lay terms / abbreviations -> NUCC codes.

The Elasticsearch mapping has core analysis only (DESIGN 4), so what a synonym filter or
asciifolding would do happens here, before the query is built, from one vocabulary file.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

VOCABULARY_FILE = Path(__file__).with_name("vocabulary.json")
MAX_TERM_WORDS = 4
# Words that carry no meaning for matching ("Dr. Johnson" is a search for Johnson).
STOPWORDS = frozenset({"dr", "doctor", "near", "me", "in", "the", "a", "an", "of", "for"})
_NON_WORD = re.compile(r"[^a-z0-9&]+")


@dataclass(frozen=True, slots=True)
class Concept:
    label: str
    codes: tuple[str, ...]  # a code ending in "*" is a prefix of NUCC codes

    def matches(self, code: str) -> bool:
        return any(code.startswith(c[:-1]) if c.endswith("*") else code == c for c in self.codes)


@dataclass(frozen=True, slots=True)
class SpecialtyMatch:
    term: str  # as the user wrote it (normalised)
    label: str
    codes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Interpretation:
    original: str
    text: str  # what remains for free-text matching: names, organisations, specialties...
    specialties: tuple[SpecialtyMatch, ...]

    @property
    def taxonomy_codes(self) -> list[str]:
        """Exact codes and "prefix*" patterns of every recognised specialty."""
        return list(dict.fromkeys(code for match in self.specialties for code in match.codes))

    @property
    def words(self) -> list[str]:
        """Every meaningful word of the query, specialty terms included."""
        return [w for w in words(self.original) if w not in STOPWORDS]


def fold(text: str) -> str:
    """Accent folding and compatibility normalisation: "Peña" -> "Pena", "ﬁ" -> "fi"."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    """Lower-case words of folded text; apostrophes vanish ("children's" -> "childrens")."""
    return [w for w in _NON_WORD.split(fold(text).lower().replace("'", "")) if w]


@cache
def vocabulary() -> dict[tuple[str, ...], Concept]:
    """Normalised term (as words) -> concept, from the vocabulary file."""
    data = json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))
    table: dict[tuple[str, ...], Concept] = {}
    for entry in data["concepts"]:
        concept = Concept(label=entry["label"], codes=tuple(entry["codes"]))
        for term in entry["terms"]:
            table[tuple(words(term))] = concept
    return table


def interpret(query: str) -> Interpretation:
    """Split the query into recognised specialty terms (longest match first) and free text."""
    tokens = words(query)
    table = vocabulary()
    matches: list[SpecialtyMatch] = []
    rest: list[str] = []
    index = 0
    while index < len(tokens):
        for size in range(min(MAX_TERM_WORDS, len(tokens) - index), 0, -1):
            key = tuple(tokens[index : index + size])
            concept = table.get(key)
            if concept is not None:
                matches.append(SpecialtyMatch(" ".join(key), concept.label, concept.codes))
                index += size
                break
        else:
            if tokens[index] not in STOPWORDS:
                rest.append(tokens[index])
            index += 1
    return Interpretation(original=query, text=" ".join(rest), specialties=tuple(matches))
