"""Query interpretation (pure): what the words of a search box mean before a query is built.

The text is tokenised by the index's own rule (``core.text``). Then, longest first: language
names ("spanish", "habla español"), specialty terms (curated lay terms and every NUCC name),
care concepts (conditions, symptoms, procedures, visit reasons: "knee pain", "flu shot"),
misspellings of both forgiven by length, titles and fillers ("Dr.", "near me"), connectors
("and", "&", "of"). What is left is free text: names and organisations.

A concept alone is read as the specialties that treat it (a filter, ranked first choices
first); beside a name or after "Dr." its words stay name words too and the concept only ranks
("Dr. Payne", "Heart of Texas Clinic"). Free words the curated list does not know may still
have a reading from NUCC's definitions (``fallback``), used only when they match nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from core.text import normalize, tokens
from service.search.care_concepts import CareConcept, curated_concepts, definition_reading
from service.search.terms import CONNECTORS
from service.search.vocabulary import (
    corrected_term,
    language_cues,
    languages,
    medical_words,
    specialties,
)

MAX_TERM_WORDS = 8
NAME_TITLES = frozenset({"dr", "drs", "dra"})  # what comes next is a person's name
TITLES = NAME_TITLES | {"doctor", "doc"}
FILLERS = frozenset({"near", "me", "nearby", "around", "close", "find", "best", "good", "top"})
STOPWORDS = CONNECTORS | TITLES | FILLERS
# Beside a care concept these say whom to see, not whom to find by name ("knee pain specialist").
CARE_WORDS = frozenset(
    {"specialist", "specialists", "doctors", "physician", "physicians", "surgeon", "clinic"}
    | {"clinics", "treatment", "treatments", "care", "help", "provider", "providers", "my", "i"}
    | {"have", "need", "office", "appointment", "for", "with", "getting", "get"}
    | {"left", "right", "both", "severe", "chronic", "mild", "acute", "bad", "sudden"}
)
Mode = Literal["filter", "boost"]


@dataclass(frozen=True, slots=True)
class SpecialtyMatch:
    term: str  # as the user wrote it (normalised)
    label: str
    codes: tuple[str, ...]
    corrected_from: str | None = None  # the misspelt words, when the term was a correction


@dataclass(frozen=True, slots=True)
class ConceptMatch:
    term: str
    concept: CareConcept
    corrected_from: str | None = None


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
    concepts: tuple[ConceptMatch, ...] = ()
    concepts_rank_only: bool = False  # beside a name or a title: the concept only ranks
    fallback: ConceptMatch | None = None  # NUCC definitions' reading of the free words

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
    def concept_codes(self) -> tuple[list[str], list[str]]:
        """(first choices, codes that also treat them) of every concept read, each once."""
        first = list(dict.fromkeys(c for m in self.concepts for c in m.concept.first))
        also = [c for m in self.concepts for c in m.concept.also if c not in first]
        return first, list(dict.fromkeys(also))

    @property
    def concept_mode(self) -> Mode | None:
        """Alone, a concept filters to the specialties that treat it; else it ranks."""
        if not self.concepts:
            return None
        alone = not self.concepts_rank_only and not self.text and not self.specialties
        return "filter" if alone else "boost"

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
            concepts=self.concepts,
            concepts_rank_only=self.concepts_rank_only,
            fallback=self.fallback,
        )

    def read_by_definitions(self) -> Interpretation:
        """The free words read as the fallback concept (they matched nothing as names)."""
        assert self.fallback is not None
        return replace(self, text="", concepts=(self.fallback,), concepts_rank_only=False)


Term = SpecialtyMatch | ConceptMatch


def _exact_term(key: tuple[str, ...], with_concepts: bool) -> Term | None:
    if key in specialties():
        found = specialties()[key]
        return SpecialtyMatch(" ".join(key), found.label, found.codes)
    concept = curated_concepts().get(key) if with_concepts else None
    return ConceptMatch(" ".join(key), concept) if concept is not None else None


def _term_at(found: list[str], index: int, with_concepts: bool) -> tuple[Term, int] | None:
    """The longest specialty term or concept form starting at ``index``, exact or misspelt
    ("eye docter" is the two-word "eye doctor", not the body part "eye" and a stray word)."""
    for size in range(min(MAX_TERM_WORDS, len(found) - index), 0, -1):
        span = found[index : index + size]
        term = _exact_term(tuple(span), with_concepts)
        if term is not None:
            return term, size
        if size > 3 or any(w in STOPWORDS for w in span):
            continue
        written = " ".join(span)
        key = corrected_term(written, with_concepts=with_concepts)
        term = _exact_term(key, with_concepts) if key is not None else None
        if term is not None:
            return replace(term, corrected_from=written), size
    return None


def _language_at(found: list[str], index: int) -> tuple[LanguageMatch, int] | None:
    table = languages()
    for size in (3, 2, 1):
        key = tuple(found[index : index + size])
        if len(key) == size and key in table:
            language = table[key]
            return LanguageMatch(" ".join(key), language.name, language.listed_as), size
    return None


def interpret(query: str, *, concepts: bool = True) -> Interpretation:
    """Split the query into specialty terms, care concepts, languages and free text;
    ``concepts=False`` reads no care concepts (the words stay words)."""
    found = [w for w in tokens(query) if w not in CONNECTORS]
    cues = language_cues()
    matches: list[SpecialtyMatch] = []
    needs: list[ConceptMatch] = []
    spoken: list[LanguageMatch] = []
    rest: list[str] = []
    index = 0
    while index < len(found):
        if (language := _language_at(found, index)) is not None:
            spoken.append(language[0])
            index += language[1]
        elif (term := _term_at(found, index, concepts)) is not None:
            if isinstance(term[0], SpecialtyMatch):
                matches.append(term[0])
            else:
                needs.append(term[0])
            index += term[1]
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
    if needs:  # words of care beside a concept describe it ("kidney dialysis", "left knee")
        medical = medical_words()
        free = [w for w in free if w not in CARE_WORDS and w not in medical]
    titled = any(w in NAME_TITLES for w in found)
    if needs and (free or titled):  # "Dr. Payne", "Heart of Texas Clinic": names first
        free += [w for need in needs for w in need.term.split()]
    name_text = " ".join(w for w in tokens(query) if w not in TITLES and w not in FILLERS)
    reading = definition_reading(" ".join(free)) if concepts and free and not needs else None
    return Interpretation(
        original=query,
        text=" ".join(free),
        specialties=tuple(_unique(matches)),
        languages=tuple(spoken),
        language_cued=cued,
        name_text=normalize(name_text),
        concepts=tuple(dict.fromkeys(needs)),
        concepts_rank_only=bool(needs) and (bool(free) or titled),
        fallback=ConceptMatch(" ".join(free), reading) if reading is not None else None,
    )


def _unique(matches: list[SpecialtyMatch]) -> list[SpecialtyMatch]:
    """One entry per concept ("obstetrics and gynecology" names one specialty, not two)."""
    seen: dict[tuple[str, ...], SpecialtyMatch] = {}
    for match in matches:
        seen.setdefault(match.codes, match)
    return list(seen.values())
