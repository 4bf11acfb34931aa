"""Resolve every location form of DESIGN 5.1 to a point, offline (pure; ZIP data in-process)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from core.geo import lookup_city, lookup_zip
from service.errors import InvalidInput

ResolvedFrom = Literal["coordinates", "zip", "city"]
_ZIP = re.compile(r"([0-9]{5})(?:-?[0-9]{4})?")
_COORDINATES = re.compile(r"(-?[0-9]{1,3}(?:\.[0-9]+)?)\s*,\s*(-?[0-9]{1,3}(?:\.[0-9]+)?)")
_CITY_STATE = re.compile(r"(.+?)\s*,\s*([A-Za-z]{2})")


class LatLng(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    lat: float = Field(ge=-90, le=90)
    lng: float = Field(ge=-180, le=180)


class ZipLocation(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    zip: str = Field(
        pattern=r"^[0-9]{5}(-?[0-9]{4})?$",
        json_schema_extra={"format": "us-zip"},
        description="a US ZIP (or ZIP+4) the directory's gazetteer knows; unknown ZIPs are a 400",
    )


class CityLocation(BaseModel):
    """A city the gazetteer knows in that state (unknown pairs are a 400)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    city: str = Field(min_length=1, max_length=64)
    state: str = Field(pattern=r"^[A-Za-z]{2}$")


PlaceText = Annotated[
    str,
    Field(
        json_schema_extra={"format": "us-place"},
        description="a known ZIP ('10013'), city ('Austin, TX') or coordinates "
        "('40.71,-74.00'); anything else is a 400",
        examples=["10013", "Austin, TX", "40.71,-74.00"],
    ),
]
LocationInput = LatLng | ZipLocation | CityLocation | PlaceText


@dataclass(frozen=True, slots=True)
class ResolvedPlace:
    lat: float
    lng: float
    resolved_from: ResolvedFrom
    label: str


class UnknownPlace(InvalidInput):
    """The location is well-formed but not a place we know (answered with a 400)."""

    def __init__(self, message: str) -> None:
        super().__init__("location", message)


def _from_zip(code: str) -> ResolvedPlace:
    place = lookup_zip(code)
    if place is None:
        raise UnknownPlace(f"unknown ZIP code {code!r}")
    return ResolvedPlace(place.lat, place.lng, "zip", f"{place.zip} {place.city}, {place.state}")


def _from_city(city: str, state: str) -> ResolvedPlace:
    centre = lookup_city(city, state)
    if centre is None:
        raise UnknownPlace(f"unknown city {city!r} in state {state.upper()!r}")
    return ResolvedPlace(centre[0], centre[1], "city", f"{city.strip().title()}, {state.upper()}")


def _from_text(text: str) -> ResolvedPlace:
    text = text.strip()
    if match := _ZIP.fullmatch(text):
        return _from_zip(match.group(1))
    if match := _COORDINATES.fullmatch(text):
        lat, lng = float(match.group(1)), float(match.group(2))
        if not (-90 <= lat <= 90 and -180 <= lng <= 180):
            raise UnknownPlace("coordinates out of range (lat -90..90, lng -180..180)")
        return ResolvedPlace(lat, lng, "coordinates", f"{lat},{lng}")
    if match := _CITY_STATE.fullmatch(text):
        return _from_city(match.group(1), match.group(2))
    raise UnknownPlace(f"cannot read location {text!r}: use a ZIP, 'City, ST' or 'lat,lng'")


def resolve(location: LocationInput) -> ResolvedPlace:
    if isinstance(location, LatLng):
        return ResolvedPlace(
            location.lat, location.lng, "coordinates", f"{location.lat},{location.lng}"
        )
    if isinstance(location, ZipLocation):
        return _from_zip(location.zip[:5])
    if isinstance(location, CityLocation):
        return _from_city(location.city, location.state)
    return _from_text(location)
