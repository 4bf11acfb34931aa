"""Query interpretation (pure): what the words of a search box mean before a query is built.

The text is tokenised by the index's own rule (``core.text``). Then, longest first: specialty
terms (curated lay terms and every NUCC name, misspellings forgiven by length), language names
("spanish", "habla español"), titles and fillers ("Dr.", "near me"), connectors ("and", "&",
"of"). What is left is free text: names and organisations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from core.text import normalize, tokens
from service.search.vocabulary import (
    CONNECTORS,
    corrected_specialty,
    language_cues,
    languages,
    specialties,
)

MAX_TERM_WORDS = 8
TITLES = frozenset({"dr", "drs", "dra", "doctor", "doc"})
FILLERS = frozenset({"near", "me", "nearby", "around", "close", "find", "best", "good", "top"})
STOPWORDS = CONNECTORS | TITLES | FILLERS
Mode = Literal["filter", "boost"]


@dataclass(frozen=True, slots=True)
class SpecialtyMatch:
    term: str  # as the user wrote it (normalised)
    label: str
    codes: tuple[str, ...]
    corrected_from: str | None = None  # the misspelt words, when the term was a correction


@dataclass(frozen=True, slots=True)
class LanguageMatch:
    term: str
    language: str
    listed_as: tuple[str, ...]  # provider listings that count as speaking it


@dataclass(frozen=True, slots=True)
class Interpretation:
    original: str
    text: str  # free text: the words left for names and organisations
    specialties: tuple[SpecialtyMatch, ...]
    languages: tuple[LanguageMatch, ...] = ()
    language_cued: bool = False  # "spanish speaking", "habla": the language is meant as one
    name_text: str = ""  # the query without titles and fillers: for whole-name matches
    dropped: tuple[str, ...] = ()  # free words left out because they match nothing

    @property
    def taxonomy_codes(self) -> list[str]:
        """Exact codes and "prefix*" patterns of every recognised specialty."""
        return list(dict.fromkeys(code for match in self.specialties for code in match.codes))

    @property
    def specialty_mode(self) -> Mode | None:
        """Alone, a specialty filters ("cardiologist"); beside a name it ranks ("Smith cardio")."""
        if not self.specialties:
            return None
        return "filter" if not self.text else "boost"

    @property
    def language_mode(self) -> Mode | None:
        """A language alone or cued filters ("spanish pediatrician"); beside a name it ranks
        and stays a name word too ("John English")."""
        if not self.languages:
            return None
        return "filter" if self.language_cued or not self.text else "boost"

    def without(self, dropped: list[str]) -> Interpretation:
        """The same reading with some free words left out (see service.search.rescue)."""
        kept = [w for w in self.text.split() if w not in dropped]
        return Interpretation(
            original=self.original,
            text=" ".join(kept),
            specialties=self.specialties,
            languages=self.languages,
            language_cued=self.language_cued,
            name_text=" ".join(w for w in self.name_text.split() if w not in dropped),
            dropped=(*self.dropped, *dropped),
        )


def _specialty_at(found: list[str], index: int) -> tuple[SpecialtyMatch, int] | None:
    """The longest specialty term starting at ``index`` (exact, else a misspelling)."""
    table = specialties()
    for size in range(min(MAX_TERM_WORDS, len(found) - index), 0, -1):
        key = tuple(found[index : index + size])
        if key in table:
            concept = table[key]
            return SpecialtyMatch(" ".join(key), concept.label, concept.codes), size
    for size in (2, 1):
        written = " ".join(found[index : index + size])
        if index + size > len(found) or any(w in STOPWORDS for w in written.split()):
            continue
        key_or_none = corrected_specialty(written)
        if key_or_none is not None:
            concept = table[key_or_none]
            term = " ".join(key_or_none)
            return SpecialtyMatch(term, concept.label, concept.codes, written), size
    return None


def _language_at(found: list[str], index: int) -> tuple[LanguageMatch, int] | None:
    table = languages()
    for size in (3, 2, 1):
        key = tuple(found[index : index + size])
        if len(key) == size and key in table:
            language = table[key]
            return LanguageMatch(" ".join(key), language.name, language.listed_as), size
    return None


def interpret(query: str) -> Interpretation:
    """Split the query into specialty terms, languages and free text."""
    found = [w for w in tokens(query) if w not in CONNECTORS]
    cues = language_cues()
    matches: list[SpecialtyMatch] = []
    spoken: list[LanguageMatch] = []
    rest: list[str] = []
    index = 0
    while index < len(found):
        if (language := _language_at(found, index)) is not None:
            spoken.append(language[0])
            index += language[1]
        elif (specialty := _specialty_at(found, index)) is not None:
            matches.append(specialty[0])
            index += specialty[1]
        else:
            rest.append(found[index])
            index += 1
    cued = any(w in cues for w in rest)
    spoken_words = [w for language in spoken for w in language.term.split()]
    if spoken and not cued and any(w in TITLES for w in found):
        rest, spoken = [*rest, *spoken_words], []  # "Dr. English" is a name
    elif spoken:
        rest = [w for w in rest if w not in cues]
    free = [w for w in rest if w not in STOPWORDS]
    if spoken and not cued and free:  # "John English": a name word as well as a language
        free += spoken_words
    name_text = " ".join(w for w in tokens(query) if w not in TITLES and w not in FILLERS)
    return Interpretation(
        original=query,
        text=" ".join(free),
        specialties=tuple(_unique(matches)),
        languages=tuple(spoken),
        language_cued=cued,
        name_text=normalize(name_text),
    )


def _unique(matches: list[SpecialtyMatch]) -> list[SpecialtyMatch]:
    """One entry per concept ("obstetrics and gynecology" names one specialty, not two)."""
    seen: dict[tuple[str, ...], SpecialtyMatch] = {}
    for match in matches:
        seen.setdefault(match.codes, match)
    return list(seen.values())
