"""US counties by FIPS code (the ``addfips`` package's 2020 county list): a county's name and
state from its code, a code from a name and state as the Plan Finder files write them
("Ben_Hill", "Hillsborough County"), and the county of a ZIP (its centroid's county)."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

import addfips

from core.zips import all_zip_places, lookup_zip


@dataclass(frozen=True, slots=True)
class County:
    fips: str  # 5 digits: state (2) and county (3)
    name: str  # as the Census writes it, e.g. "Hillsborough County"
    state: str  # USPS code, e.g. NH


@cache
def _finder() -> addfips.AddFIPS:
    return addfips.AddFIPS()


@cache
def _by_fips() -> dict[str, County]:
    data = resources.files("addfips") / "data"
    with (data / "states.csv").open(encoding="utf-8") as handle:
        postal = {row["fips"]: row["postal"] for row in csv.DictReader(handle)}
    with (data / "counties_2020.csv").open(encoding="utf-8") as handle:
        return {
            row["statefp"] + row["countyfp"]: County(
                row["statefp"] + row["countyfp"], row["name"], postal[row["statefp"]]
            )
            for row in csv.DictReader(handle)
            if row["statefp"] in postal
        }


def county(fips: str) -> County | None:
    return _by_fips().get(fips)


@lru_cache(maxsize=8192)
def county_fips(name: str, state: str) -> str | None:
    """``("Ben_Hill", "GA")`` -> ``"13017"``; None when the state has no such county."""
    if not name.strip() or len(state) != 2:
        return None
    found = _finder().get_county_fips(name.replace("_", " ").strip(), state=state)
    return found if isinstance(found, str) and found in _by_fips() else None


@lru_cache(maxsize=65536)
def zip_county(zip_code: str) -> County | None:
    """The county of a ZIP's centroid (a ZIP that spans counties gets one of them)."""
    place = lookup_zip(zip_code)
    if place is None or place.county is None:
        return None
    fips = county_fips(place.county, place.state)
    return county(fips) if fips else None


@cache
def county_zips() -> dict[str, tuple[str, ...]]:
    """County FIPS -> the ZIPs whose centroid lies in it."""
    found: dict[str, list[str]] = {}
    for place in all_zip_places():
        if place.county is None:
            continue
        fips = county_fips(place.county, place.state)
        if fips is not None:
            found.setdefault(fips, []).append(place.zip)
    return {fips: tuple(sorted(zips)) for fips, zips in found.items()}


def preload() -> None:
    _by_fips()
