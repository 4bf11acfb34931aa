"""Offline US geography: ZIP centroids (the ``zipcodes`` package) and great-circle distance."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import zipcodes

EARTH_RADIUS_MILES = 3958.7613


@dataclass(frozen=True, slots=True)
class ZipPlace:
    zip: str
    city: str
    state: str
    county: str | None
    lat: float
    lng: float


def _has_coordinates(entry: dict[str, str]) -> bool:
    """The package gives ~870 ZIPs (military, PO box, unique) the coordinates "0", "0": they are
    not places, and a truthiness check on the strings would keep them at 0,0."""
    try:
        return (float(entry.get("lat") or 0), float(entry.get("long") or 0)) != (0.0, 0.0)
    except ValueError:
        return False


@cache
def _zip_table() -> dict[str, ZipPlace]:
    # One pass over the package's data: a dict lookup per row instead of a scan per row.
    table: dict[str, ZipPlace] = {}
    for entry in zipcodes.list_all():  # type: ignore[no-untyped-call]
        if not _has_coordinates(entry):
            continue
        table[entry["zip_code"]] = ZipPlace(
            zip=entry["zip_code"],
            city=entry["city"],
            state=entry["state"],
            county=entry.get("county") or None,
            lat=float(entry["lat"]),
            lng=float(entry["long"]),
        )
    return table


@cache
def _city_table() -> dict[tuple[str, str], tuple[float, float]]:
    """(CITY, ST) -> mean of the ZIP centroids that name the city (primary or acceptable)."""
    sums: dict[tuple[str, str], list[float]] = {}
    for entry in zipcodes.list_all():  # type: ignore[no-untyped-call]
        if not _has_coordinates(entry):
            continue
        for city in [entry["city"], *entry.get("acceptable_cities", [])]:
            acc = sums.setdefault((city.upper(), entry["state"]), [0.0, 0.0, 0.0])
            acc[0] += float(entry["lat"])
            acc[1] += float(entry["long"])
            acc[2] += 1
    return {key: (lat / n, lng / n) for key, (lat, lng, n) in sums.items()}


def lookup_city(city: str, state: str) -> tuple[float, float] | None:
    """Centre of a US city, as the mean of its ZIP centroids; None when unknown."""
    return _city_table().get((" ".join(city.upper().split()), state.strip().upper()))


def zip5(postal_code: str) -> str | None:
    """The 5-digit ZIP of a ZIP or ZIP+4 (with or without dash); None when not US-shaped."""
    digits = postal_code.replace("-", "").strip()
    if len(digits) not in (5, 9) or not digits.isdigit():
        return None
    return digits[:5]


def all_zip_places() -> Iterator[ZipPlace]:
    """Every ZIP with real coordinates, in the package's order."""
    return iter(_zip_table().values())


def lookup_zip(postal_code: str) -> ZipPlace | None:
    code = zip5(postal_code)
    return _zip_table().get(code) if code else None


def haversine_miles(lat1: float, lng1: float, lat2: float, lng2: float) -> float:
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    dphi = phi2 - phi1
    dlambda = math.radians(lng2 - lng1)
    a = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlambda / 2) ** 2
    return 2 * EARTH_RADIUS_MILES * math.asin(math.sqrt(a))


def preload() -> None:
    """Build the lookup tables now (about half a second) rather than on a first request."""
    _zip_table()
    _city_table()
