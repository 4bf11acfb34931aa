"""Resolve every location form of DESIGN 5.1 to a point, offline (pure; tables in-process).

A ZIP is its centroid (``zipcodes``); a city is its GeoNames centre, or for a town GeoNames lacks
the ZIP nearest the median of its ZIPs (``core.gazetteer``). Names are compared by key
(``core.placenames``: case, accents, punctuation, "St."/"Saint", "Ft."/"Fort", "Mt."/"Mount").
Text is read as "City, State" (the last two comma parts), else "City ST" or "City State" with
the state at the end, else a city without a state, which must name one place clearly (the
most populous, at least ten times the next). A ZIP before or after a city wins over it, but
must lie in the state the text names. Anything unknown or ambiguous is a 400 that lists the
closest known places.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from core import gazetteer
from core.gazetteer import GazetteerSource
from core.geo import lookup_zip
from core.placenames import COUNTRY_WORDS, closest_states, place_key, state_code, state_names
from service.errors import PlaceNotFound

ResolvedFrom = Literal["coordinates", "zip", "city"]
# Which data answered: a gazetteer, or the coordinates as given.
PlaceSource = Literal[GazetteerSource, "coordinates"]
MAX_SUGGESTIONS = 5
_ZIP = r"[0-9]{5}(?:-?[0-9]{4})?"
_LEADING_ZIP = re.compile(rf"(?P<zip>{_ZIP})(?:[\s,]+(?P<rest>.*))?")
_TRAILING_ZIP = re.compile(rf"(?P<rest>.+?)[\s,]+(?P<zip>{_ZIP})")
_COORDINATES = re.compile(r"(-?[0-9]{1,3}(?:\.[0-9]+)?)\s*,\s*(-?[0-9]{1,3}(?:\.[0-9]+)?)")


class LatLng(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    lat: float = Field(ge=-90, le=90)
    lng: float = Field(ge=-180, le=180)


class ZipLocation(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    zip: str = Field(
        pattern=r"^[0-9]{5}(-?[0-9]{4})?$",
        json_schema_extra={"format": "us-zip"},
        description="a US ZIP (or ZIP+4) the directory's gazetteer knows; unknown ZIPs are a 404",
    )


class CityLocation(BaseModel):
    """A city the gazetteer knows in that state (unknown pairs are a 404 with suggestions)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    city: str = Field(min_length=1, max_length=64)
    state: str = Field(
        pattern=r"^[A-Za-z][A-Za-z. ]*[A-Za-z.]$",
        max_length=32,
        description="a state, DC or territory: its USPS code ('TX') or its name ('Texas')",
    )


PlaceText = Annotated[
    str,
    Field(
        min_length=1,
        max_length=256,
        pattern="[A-Za-z0-9]",  # a letter or digit somewhere: there is something to read
        json_schema_extra={"format": "us-place"},
        description="a known ZIP ('10013'), city ('Austin, TX', 'Austin Texas', 'St. Louis, MO', "
        "'Houston, TX 77002') or coordinates ('40.71,-74.00'); a place the directory does not "
        "know is a 404 (place_not_found) that lists the closest known places",
        examples=["10013", "Austin, TX", "40.71,-74.00"],
    ),
]
LocationInput = LatLng | ZipLocation | CityLocation | PlaceText


@dataclass(frozen=True, slots=True)
class ResolvedPlace:
    lat: float
    lng: float
    resolved_from: ResolvedFrom
    label: str  # the canonical name: "St. Louis, MO", "10013 New York, NY", "40.71,-74.0"
    source: PlaceSource


class UnknownPlace(PlaceNotFound):
    """The location is well-formed but not one place we know."""

    def __init__(self, message: str, suggestions: Sequence[str] = ()) -> None:
        listed = list(dict.fromkeys(suggestions))[:MAX_SUGGESTIONS]
        if len(listed) == 1:
            message += f"; did you mean {listed[0]}?"
        elif listed:
            message += f"; did you mean one of: {'; '.join(listed)}?"
        super().__init__(message, suggestions=listed)


def _from_zip(code: str, rest: str | None = None) -> ResolvedPlace:
    place = lookup_zip(code)
    if place is None:
        raise UnknownPlace(f"unknown ZIP code {code!r}")
    label = f"{place.zip} {place.city}, {place.state}"
    # The ZIP is the more precise part; a state it is not in is a typo somewhere, not a choice.
    said = (state_code(state) for _, state in _readings(rest or "") if state)
    stated = {state for state in said if state}
    if stated and place.state not in stated:
        raise UnknownPlace(f"ZIP {place.zip} is in {place.state}, not {min(stated)}", [label])
    return ResolvedPlace(place.lat, place.lng, "zip", label, "zipcodes")


def _readings(text: str) -> list[tuple[str, str | None]]:
    """(city, state as written) pairs the text may mean, the most specific first."""
    parts = [part.strip() for part in text.split(",")]
    while len(parts) > 1 and place_key(parts[-1]) in COUNTRY_WORDS:
        parts.pop()
    parts = [part for part in parts if part]
    if len(parts) >= 2:
        return [(parts[-2], parts[-1])]
    words = parts[0].split() if parts else []
    while len(words) > 1 and place_key(words[-1]) in COUNTRY_WORDS:
        words.pop()
    with_state: list[tuple[str, str | None]] = [
        (" ".join(words[:-n]), " ".join(words[-n:]))
        for n in (3, 2, 1)  # "District of Columbia", "New York", "TX"
        if n < len(words) and state_code(" ".join(words[-n:]))
    ]
    return [*with_state, (" ".join(words), None)]


def _without_state(key: str, city: str) -> gazetteer.Place | UnknownPlace:
    places = gazetteer.named(key)
    if (place := gazetteer.dominant(places)) is not None:
        return place
    if places:
        return UnknownPlace(
            f"{city!r} is a place in {len(places)} states: add the state",
            [p.label for p in places],
        )
    if state_code(city):
        return UnknownPlace(f"{city!r} is a state: give a city in it, a ZIP or 'lat,lng'")
    return UnknownPlace(
        f"unknown place {city!r}: use 'City, ST', a ZIP or 'lat,lng'",
        [p.label for p in gazetteer.closest(key, None)],
    )


def _lookup(city: str, state_text: str | None) -> gazetteer.Place | UnknownPlace:
    key = place_key(city)
    if not key:
        return UnknownPlace(f"no city before {state_text!r}")
    if state_text is None:
        return _without_state(key, city)
    state = state_code(state_text)
    elsewhere = gazetteer.named(key)
    if state is None:
        # "Austin, Texsa": Austin, TX first; "Atlantis, Texsa": Texas, then Atlantis, FL.
        by_state = {p.state: p.label for p in elsewhere}
        near = [by_state.get(code, state_names()[code]) for code in closest_states(state_text)]
        return UnknownPlace(f"unknown state {state_text!r}", near + list(by_state.values()))
    place = gazetteer.find(key, state)
    if place is not None:
        return place
    nearby = [p.label for p in gazetteer.closest(key, state)]
    return UnknownPlace(f"unknown city {city!r} in {state}", nearby + [p.label for p in elsewhere])


def _city(place: gazetteer.Place) -> ResolvedPlace:
    return ResolvedPlace(place.lat, place.lng, "city", place.label, place.source)


def _from_name(text: str) -> ResolvedPlace:
    """The first reading that names a known place; else why the most specific one did not."""
    failure: UnknownPlace | None = None
    for city, state in _readings(text):
        place = _lookup(city, state)
        if isinstance(place, gazetteer.Place):
            return _city(place)
        failure = failure or place
    assert failure is not None  # there is always the reading "a city without a state"
    raise failure


def _from_text(text: str) -> ResolvedPlace:
    text = text.strip()
    if match := _COORDINATES.fullmatch(text):
        lat, lng = float(match.group(1)), float(match.group(2))
        if not (-90 <= lat <= 90 and -180 <= lng <= 180):
            raise UnknownPlace("coordinates out of range (lat -90..90, lng -180..180)")
        return ResolvedPlace(lat, lng, "coordinates", f"{lat},{lng}", "coordinates")
    if match := _LEADING_ZIP.fullmatch(text) or _TRAILING_ZIP.fullmatch(text):
        return _from_zip(match.group("zip"), match.group("rest"))
    if not place_key(text):
        raise UnknownPlace(f"cannot read location {text!r}: use a ZIP, 'City, ST' or 'lat,lng'")
    return _from_name(text)


def resolve(location: LocationInput) -> ResolvedPlace:
    if isinstance(location, LatLng):
        label = f"{location.lat},{location.lng}"
        return ResolvedPlace(location.lat, location.lng, "coordinates", label, "coordinates")
    if isinstance(location, ZipLocation):
        return _from_zip(location.zip[:5])
    if isinstance(location, CityLocation):
        place = _lookup(location.city, location.state)
        if isinstance(place, UnknownPlace):
            raise place
        return _city(place)
    return _from_text(location)
