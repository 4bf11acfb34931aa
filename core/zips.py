"""ZIP centroids from the ``zipcodes`` package (the indexer geocodes practice addresses by ZIP)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import zipcodes


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
def _listed() -> tuple[tuple[ZipPlace, tuple[str, ...]], ...]:
    # One pass over the package's data: a dict lookup per row instead of a scan per row.
    return tuple(
        (
            ZipPlace(
                zip=entry["zip_code"],
                city=entry["city"],
                state=entry["state"],
                county=entry.get("county") or None,
                lat=float(entry["lat"]),
                lng=float(entry["long"]),
            ),
            tuple(entry.get("acceptable_cities") or ()),
        )
        for entry in zipcodes.list_all()  # type: ignore[no-untyped-call]
        if _has_coordinates(entry)
    )


@cache
def _zip_table() -> dict[str, ZipPlace]:
    return {place.zip: place for place, _ in _listed()}


def zip5(postal_code: str) -> str | None:
    """The 5-digit ZIP of a ZIP or ZIP+4 (with or without dash); None when not US-shaped."""
    digits = postal_code.replace("-", "").strip()
    if len(digits) not in (5, 9) or not digits.isdigit():
        return None
    return digits[:5]


def all_zip_places() -> Iterator[ZipPlace]:
    """Every ZIP with real coordinates, in the package's order."""
    return iter(_zip_table().values())


def zips_with_other_names() -> Iterator[tuple[ZipPlace, tuple[str, ...]]]:
    """Every ZIP with real coordinates and the other city names USPS accepts for it."""
    return iter(_listed())


def lookup_zip(postal_code: str) -> ZipPlace | None:
    code = zip5(postal_code)
    return _zip_table().get(code) if code else None


def preload() -> None:
    _zip_table()
