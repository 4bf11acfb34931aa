"""/v2 search and /fhir ask the search index through one kit (service.search_kit): its radius
filter, in-radius rule and distance sort. Both are held here to what the sample files say, at
several places, for individuals (``entityType`` individual; FHIR PractitionerRole) and
organisations (``entityType`` organization; FHIR Location of a provider organisation), each with
a radius drawn between two locations: one just inside it, the next just outside.

What is expected is worked out here from the files, never from the service: every active
provider's locations are its NPPES practice address (a US one) and each Doctors & Clinicians
address, placed at their ZIP code's centroid (tests.source_rows.zip_centroid), at haversine
miles (tests.source_rows.miles); the providers with a location inside the radius, nearest
first, the NPI breaking a tie."""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass
from functools import cache

import pytest

from core.documents import Json
from tests.conftest import SAMPLE_DIR, ApiClient
from tests.indexer.expected import dac_address, dac_rows
from tests.service.fhir import fhir_rows as F
from tests.service.search.calls import all_results
from tests.source_rows import active_rows, miles, zip_centroid

Point = tuple[float, float]
PRACTICE = "Provider Business Practice Location Address"
COUNTRY = f"{PRACTICE} Country Code (If outside U.S.)"
ENTITY = {"individual": "1", "organization": "2"}
# Places in four states of the sample: lower Manhattan, the Loop, Koreatown (Los Angeles), Miami.
PLACES: dict[str, Point] = {
    "new-york": (40.7128, -74.0060),
    "chicago": (41.8781, -87.6298),
    "los-angeles": (34.05, -118.30),
    "miami": (25.7617, -80.1918),
}
EDGE_MILES = 0.02  # the boundary's locations are this far inside and outside the radius at least
INSIDE = range(10, 61)  # how many providers a case's radius holds
SAME_MILES = 0.01  # a distance told equals the one worked out here (Elasticsearch's rounding)
ORG_TYPE = "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/OrgTypeCS|prvgrp"


@cache
def sample_points() -> dict[str, tuple[str, frozenset[Point]]]:
    """NPI -> (entity type code, the points of its locations), from the sample's files."""
    kinds: dict[str, str] = {}
    points: dict[str, set[Point]] = defaultdict(set)
    for row in active_rows(SAMPLE_DIR / "npidata_pfile_sample.csv.gz"):
        kinds[row["NPI"]] = row["Entity Type Code"]
        place = zip_centroid(row[f"{PRACTICE} Postal Code"])
        if place is not None and row[COUNTRY] in ("", "US"):
            points[row["NPI"]].add(place[:2])
    for name, row in dac_rows(SAMPLE_DIR):
        npi, address = row["NPI"].strip(), dac_address(name, row)
        place = zip_centroid(address[4]) if address is not None else None
        if npi in kinds and place is not None:  # the DAC adds to providers NPPES lists
            points[npi].add(place[:2])
    return {npi: (kinds[npi], frozenset(found)) for npi, found in points.items()}


@dataclass(frozen=True)
class Expected:
    """The providers of one kind with a location within ``radius`` of ``at``."""

    at: Point
    radius: float
    nearest: list[tuple[float, str]]  # (miles to its nearest location, NPI), nearest first
    inside: dict[str, set[Point]]  # NPI -> its locations inside the radius
    just_inside: str  # a provider whose nearest location is just inside the radius
    just_outside: str  # one whose nearest location is just outside it

    def told(self, npi: str) -> float:
        return next(d for d, n in self.nearest if n == npi)


@cache
def expected(place: str, entity: str) -> Expected:
    """The radius is drawn halfway between two successive locations' distances, the closest
    two (at least 2 * EDGE_MILES apart) around which INSIDE providers are inside it."""
    at = PLACES[place]
    of_kind = {n: pts for n, (kind, pts) in sample_points().items() if kind == ENTITY[entity]}
    nearest = sorted((min(miles(at, p) for p in pts), npi) for npi, pts in of_kind.items())
    distances = sorted({miles(at, p) for pts in of_kind.values() for p in pts})
    here, there = min(
        (
            (here, there)
            for here, there in itertools.pairwise(distances)
            if there - here >= 2 * EDGE_MILES and sum(d <= here for d, _ in nearest) in INSIDE
        ),
        key=lambda pair: pair[1] - pair[0],
    )
    radius = (here + there) / 2
    inside = [(d, npi) for d, npi in nearest if d <= radius]
    return Expected(
        at,
        radius,
        inside,
        {npi: {p for p in of_kind[npi] if miles(at, p) <= radius} for _, npi in inside},
        next(npi for d, npi in nearest if d == here),
        next(npi for d, npi in nearest if d == there),
    )


def _rounded(lat: float, lng: float) -> Point:
    return round(lat, 4), round(lng, 4)


def _points(points: set[Point]) -> set[Point]:
    return {_rounded(*p) for p in points}


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("entity", ENTITY)
def test_each_case_has_a_boundary_worked_out_from_the_files(place: str, entity: str) -> None:
    case = expected(place, entity)
    assert len(case.nearest) in INSIDE
    assert case.told(case.just_inside) <= case.radius - EDGE_MILES
    just_outside = min(miles(case.at, p) for p in sample_points()[case.just_outside][1])
    assert just_outside >= case.radius + EDGE_MILES
    assert case.just_outside not in case.inside


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("entity", ENTITY)
async def test_v2_search_finds_the_providers_inside_the_radius_nearest_first(
    api: ApiClient, auth_header: dict[str, str], place: str, entity: str
) -> None:
    case = expected(place, entity)
    lat, lng = case.at
    results = await all_results(
        api,
        auth_header,
        location={"lat": lat, "lng": lng},
        radius=case.radius,
        entityType=entity,
        sort="distance",
    )
    found = [str(r["npis"][0]) for r in results]
    assert found == [npi for _, npi in case.nearest]
    assert case.just_inside in found and case.just_outside not in found
    for npi, result in zip(found, results, strict=True):
        locations = result["locations"]
        told = [location["distance"] for location in locations]
        assert told == sorted(told) and told[0] == pytest.approx(case.told(npi), abs=SAME_MILES)
        positions = {_rounded(loc["address"]["lat"], loc["address"]["lng"]) for loc in locations}
        assert positions == _points(case.inside[npi]), npi


async def _near(api: ApiClient, kind: str, case: Expected, *more: tuple[str, str]) -> list[Json]:
    """The matches of a FHIR near search of the case's place and radius, every page."""
    lat, lng = case.at
    params = [("near", f"{lat}|{lng}|{case.radius}|mi"), *more]
    pages = await F.walk(api, kind, params)
    return [e for p in pages for e in p.get("entry", []) if e["search"]["mode"] == "match"]


def _distance(entry: Json) -> float:
    [extension] = entry["search"]["extension"]
    assert extension["valueDistance"]["unit"] == "mi"
    return float(extension["valueDistance"]["value"])


@pytest.mark.parametrize("place", PLACES)
async def test_a_fhir_near_search_of_roles_finds_the_practitioners_inside_the_radius(
    api: ApiClient, place: str
) -> None:
    case = expected(place, "individual")
    entries = await _near(api, "PractitionerRole", case)
    practitioners = [
        str(e["resource"]["practitioner"]["reference"]).removeprefix("Practitioner/")
        for e in entries
    ]
    assert list(dict.fromkeys(practitioners)) == [npi for _, npi in case.nearest]
    assert case.just_inside in practitioners and case.just_outside not in practitioners
    for npi, entry in zip(practitioners, entries, strict=True):
        # A role per network the practitioner is in, each told at its nearest location.
        assert _distance(entry) == pytest.approx(case.told(npi), abs=SAME_MILES)


@pytest.mark.parametrize("place", PLACES)
async def test_a_fhir_near_search_of_locations_finds_the_organisations_inside_the_radius(
    api: ApiClient, place: str
) -> None:
    case = expected(place, "organization")
    entries = await _near(api, "Location", case, ("organization.type", ORG_TYPE))
    owners = [
        str(e["resource"]["managingOrganization"]["reference"]).removeprefix("Organization/")
        for e in entries
    ]
    assert list(dict.fromkeys(owners)) == [npi for _, npi in case.nearest]
    assert case.just_inside in owners and case.just_outside not in owners
    placed: dict[str, set[Point]] = defaultdict(set)
    for npi, entry in zip(owners, entries, strict=True):
        position = entry["resource"]["position"]
        here = (position["latitude"], position["longitude"])
        placed[npi].add(_rounded(*here))
        # Each location inside the radius, told at its own distance.
        assert _distance(entry) == pytest.approx(miles(case.at, here), abs=SAME_MILES)
        assert _distance(entry) <= case.radius
    assert placed == {npi: _points(points) for npi, points in case.inside.items()}
