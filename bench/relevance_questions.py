"""Questions for the relevance harness, built from an NPPES file with a fixed seed.

Providers: active rows (the indexer's reader drops deactivated ones) whose practice ZIP is a US
ZIP the ZIP table (``core.geo``) knows; people need a first name of 2+ letters (no initials),
and no name is skipped for being common. Names are asked in title case ("Maria Garcia"), the way
people type them; organisation names exactly as written in NPPES. The name classes share one
shuffled draw of individuals (so ``name_typo`` asks about the same people as ``name_exact``), the
organisation classes one draw of organisations; ``last_specialty`` draws round-robin over the
specialties of the harness's own table (``bench/relevance_specialties.py``), so that nurse
practitioners and counsellors, the bulk of NPPES, do not crowd out the rest. Specialty words are
asked in the cities with the most providers in the file (as "City, ST" and as the city's
busiest ZIP), only where the file has at least one provider of that primary specialty inside
the radius (counted with haversine over ZIP centroids).
"""

from __future__ import annotations

import random
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bench.relevance_conditions import condition_terms
from bench.relevance_specialties import SPECIALTIES, Specialty, specialty_of
from core.geo import all_zip_places, haversine_miles, lookup_zip, zip5
from indexer.sources.nppes import NppesRecord, read_nppes
from indexer.sources.rejects import ignore_rejects

RADIUS_MILES = 25
CITIES = 20
CLASSES = (
    "name_exact",
    "name_typo",
    "name_city",
    "last_specialty",
    "org_exact",
    "org_typo",
    "specialty_lay",
    "specialty_misspelt",
    "condition",
)
SPECIALTY_CLASSES = ("last_specialty", "specialty_lay", "specialty_misspelt", "condition")
_ROWS = ("QWERTYUIOP", "ASDFGHJKL", "ZXCVBNM")
# The letters around each key of a QWERTY keyboard: typos hit neighbours, not random letters.
_NEIGHBOURS = {
    key: "".join(
        other
        for r, other_row in enumerate(_ROWS)
        for c, other in enumerate(other_row)
        if other != key and abs(r - row) <= 1 and abs(c + r * 0.5 - (col + row * 0.5)) <= 1
    )
    for row, keys in enumerate(_ROWS)
    for col, key in enumerate(keys)
}


def name_key(text: str) -> str:
    """Accents folded, upper case, punctuation as spaces, spaces collapsed."""
    folded = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in folded if not unicodedata.combining(c)).upper()
    return " ".join("".join(c if c.isalnum() else " " for c in plain).split())


@dataclass(frozen=True, slots=True)
class Entry:
    """One active provider of the file, as the harness needs it."""

    npi: str
    individual: bool
    first: str
    last: str
    org: str
    city: str
    state: str
    zip: str
    primary: str  # the primary taxonomy code ("" when the row has none)

    @property
    def full_name_key(self) -> str:
        return name_key(f"{self.first} {self.last}" if self.individual else self.org)

    @property
    def label(self) -> str:
        name = f"{self.first} {self.last}" if self.individual else self.org
        return f"{self.npi} {name} ({self.primary or '-'}, {self.zip})"


@dataclass(frozen=True, slots=True)
class Question:
    cls: str
    query: str
    location: str
    point: tuple[float, float] | None  # the ZIP centroid or city centre; None: not known
    expected: Entry | None = None
    specialty: Specialty | None = None
    in_radius: int = 0  # providers of ``specialty`` (primary) inside the radius, by the file


def _primary(record: NppesRecord) -> str:
    flagged = [t.code for t in record.taxonomies if t.primary]
    return (flagged or [t.code for t in record.taxonomies] or [""])[0]


def read_directory(path: Path) -> dict[str, Entry]:
    """NPI -> Entry for every active row with a US practice ZIP the gazetteer knows."""
    entries: dict[str, Entry] = {}
    for row in read_nppes(path, ignore_rejects):
        if not isinstance(row, NppesRecord) or row.country not in ("", "US"):
            continue
        code = zip5(row.postal_code)
        if code is None or lookup_zip(code) is None:
            continue
        entries[row.npi] = Entry(
            row.npi,
            row.entity_type == "1",
            row.first_name,
            row.last_name,
            row.organization_name,
            row.city,
            row.state,
            code,
            _primary(row),
        )
    return entries


def one_edit(word: str, rng: random.Random) -> str:
    """``word`` (letters only) with one substitution or insertion of a keyboard neighbour, one
    deletion or one transposition, never at the first letter (people get first letters
    right); always different from ``word``, in its case (upper or lower)."""
    upper = word.upper()
    for _ in range(20):
        op = rng.choice(("sub", "del", "ins", "swap"))
        i = rng.randrange(1, len(upper) - (op == "swap"))
        if op == "sub":
            edited = upper[:i] + rng.choice(_NEIGHBOURS[upper[i]]) + upper[i + 1 :]
        elif op == "del":
            edited = upper[:i] + upper[i + 1 :]
        elif op == "ins":
            edited = upper[:i] + rng.choice(_NEIGHBOURS[upper[i - 1]] + upper[i - 1]) + upper[i:]
        else:
            edited = upper[:i] + upper[i + 1] + upper[i] + upper[i + 2 :]
        if edited != upper:
            return edited if word.isupper() else edited.lower()
    raise ValueError(f"no edit found for {word!r}")


def _zip_point(code: str) -> tuple[float, float] | None:
    place = lookup_zip(code)
    return (place.lat, place.lng) if place else None


@cache
def _city_centres() -> dict[tuple[str, str], tuple[float, float]]:
    """(CITY, ST) -> mean of the centroids of the ZIPs whose primary city it is: the harness's
    own reading of a city, for counting providers in the radius (the service has its own)."""
    sums: dict[tuple[str, str], tuple[float, float, int]] = {}
    for place in all_zip_places():
        lat, lng, n = sums.get((place.city.upper(), place.state), (0.0, 0.0, 0))
        sums[place.city.upper(), place.state] = (lat + place.lat, lng + place.lng, n + 1)
    return {key: (lat / n, lng / n) for key, (lat, lng, n) in sums.items()}


def _city_point(city: str, state: str) -> tuple[float, float] | None:
    return _city_centres().get((" ".join(city.upper().split()), state.upper()))


class Builder:
    """Every class's questions from one file; each draw has its own seeded generator, so
    changing one class leaves the others' questions as they were."""

    def __init__(self, entries: dict[str, Entry], per_class: int, seed: int) -> None:
        self.entries = entries
        self.per_class = per_class
        self.seed = seed
        ordered = sorted(entries.values(), key=lambda e: e.npi)
        self.people = [e for e in ordered if e.individual and len(e.first) > 1 and e.last]
        self.orgs = [e for e in ordered if not e.individual and e.org]
        self.rng(":people").shuffle(self.people)
        self.rng(":orgs").shuffle(self.orgs)
        self._zips: dict[str, Counter[str]] = {}
        self._counts: dict[tuple[str, tuple[float, float]], int] = {}

    def rng(self, purpose: str) -> random.Random:
        return random.Random(f"{self.seed}{purpose}")  # str seeds are stable across runs

    def in_radius(self, specialty: Specialty, point: tuple[float, float]) -> int:
        """Providers whose primary taxonomy is in ``specialty``, practising within the radius."""
        if (specialty.key, point) not in self._counts:
            if specialty.key not in self._zips:
                self._zips[specialty.key] = Counter(
                    e.zip for e in self.entries.values() if specialty.covers(e.primary)
                )
            count = 0
            for code, n in self._zips[specialty.key].items():
                place = lookup_zip(code)
                if place and haversine_miles(*point, place.lat, place.lng) <= RADIUS_MILES:
                    count += n
            self._counts[specialty.key, point] = count
        return self._counts[specialty.key, point]

    def names(self) -> list[Question]:
        found: dict[str, list[Question]] = {c: [] for c in CLASSES[:3]}
        rng = self.rng(":typos")
        for e in self.people:
            first, last, zip_point = e.first.title(), e.last.title(), _zip_point(e.zip)
            if len(found["name_exact"]) < self.per_class:
                found["name_exact"].append(
                    Question("name_exact", f"{first} {last}", e.zip, zip_point, e)
                )
            if len(found["name_typo"]) < self.per_class and e.last.isalpha() and len(e.last) >= 5:
                typo = one_edit(e.last, rng).title()
                found["name_typo"].append(
                    Question("name_typo", f"{first} {typo}", e.zip, zip_point, e)
                )
            if len(found["name_city"]) < self.per_class and e.city:
                city = f"{e.city.title()}, {e.state}"
                point = _city_point(e.city, e.state)
                found["name_city"].append(
                    Question("name_city", f"Dr. {first} {last}", city, point, e)
                )
            if all(len(q) >= self.per_class for q in found.values()):
                break
        return [q for qs in found.values() for q in qs]

    def last_specialty(self) -> list[Question]:
        by_specialty: dict[str, list[Entry]] = {}
        for e in self.people:
            specialty = specialty_of(e.primary)
            if specialty is not None:
                by_specialty.setdefault(specialty.key, []).append(e)
        queues = [by_specialty[s.key] for s in SPECIALTIES if s.key in by_specialty]
        questions: list[Question] = []
        while len(questions) < self.per_class and any(queues):
            for queue in queues:
                if queue and len(questions) < self.per_class:
                    e = queue.pop(0)
                    specialty = specialty_of(e.primary)
                    point = _zip_point(e.zip)
                    assert specialty is not None and specialty.noun and point
                    query = f"{e.last.title()} {specialty.noun}"
                    count = self.in_radius(specialty, point)
                    questions.append(
                        Question("last_specialty", query, e.zip, point, e, specialty, count)
                    )
        return questions

    def orgs_questions(self) -> list[Question]:
        exact: list[Question] = []
        typos: list[Question] = []
        rng = self.rng(":org-typos")
        for e in self.orgs:
            point = _zip_point(e.zip)
            if len(exact) < self.per_class:
                exact.append(Question("org_exact", e.org, e.zip, point, e))
            words = e.org.split(" ")
            long_words = [i for i, w in enumerate(words) if w.isalpha() and len(w) >= 5]
            if len(typos) < self.per_class and long_words:
                i = rng.choice(long_words)
                words[i] = one_edit(words[i], rng)
                typos.append(Question("org_typo", " ".join(words), e.zip, point, e))
            if len(exact) >= self.per_class and len(typos) >= self.per_class:
                break
        return exact + typos

    def places(self) -> list[tuple[str, tuple[float, float]]]:
        """The busiest cities of the file, each as "City, ST" and as its busiest ZIP."""
        cities = Counter((e.city, e.state) for e in self.entries.values())
        zips = Counter((e.city, e.state, e.zip) for e in self.entries.values())
        found: list[tuple[str, tuple[float, float]]] = []
        for (city, state), _ in cities.most_common():
            point = _city_point(city, state)
            if point is None:
                continue
            busiest = max((n, z) for (c, s, z), n in zips.items() if (c, s) == (city, state))[1]
            zip_point = _zip_point(busiest)
            assert zip_point is not None
            found += [(f"{city.title()}, {state}", point), (busiest, zip_point)]
            if len(found) >= 2 * CITIES:
                break
        return found

    def misspellings(self) -> list[tuple[str, Specialty]]:
        """The table's misspellings plus two generated ones per one-word noun."""
        rng = self.rng(":misspellings")
        terms = [(term, s) for s in SPECIALTIES for term in s.misspelt]
        for s in SPECIALTIES:
            if s.noun and s.noun.isalpha() and len(s.noun) >= 7:
                known = {t.lower() for t in (*s.lay, *s.misspelt)}
                made = {one_edit(s.noun, rng) for _ in range(6)} - known
                terms += [(term, s) for term in sorted(made)[:2]]
        return terms

    def specialty(self, cls: str, terms: list[tuple[str, Specialty]]) -> list[Question]:
        pairs: list[Question] = []
        for location, point in self.places():
            for term, specialty in terms:
                count = self.in_radius(specialty, point)
                if count:
                    pairs.append(Question(cls, term, location, point, None, specialty, count))
        self.rng(f":{cls}").shuffle(pairs)
        return pairs[: self.per_class]


def build_questions(entries: dict[str, Entry], per_class: int, seed: int) -> list[Question]:
    builder = Builder(entries, per_class, seed)
    lay = [(term, s) for s in SPECIALTIES for term in s.lay]
    return [
        *builder.names(),
        *builder.last_specialty(),
        *builder.orgs_questions(),
        *builder.specialty("specialty_lay", lay),
        *builder.specialty("specialty_misspelt", builder.misspellings()),
        *builder.specialty("condition", condition_terms()),
    ]
