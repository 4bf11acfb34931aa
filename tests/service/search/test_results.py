"""Picking a hit's locations for the answer (pure): inside the radius, nearest first."""

from __future__ import annotations

from typing import Any

from service.search.places import ResolvedPlace
from service.search.results import MAX_LOCATIONS_PER_RESULT, in_radius_locations
from tests.source_rows import miles


def _location(lat: float | None, lng: float | None, n: int = 0) -> Any:
    return {"id": f"loc{n}", "address": {"lat": lat, "lng": lng}}


def test_only_locations_inside_the_radius_nearest_first_with_their_distance() -> None:
    place = ResolvedPlace(40.0, -75.0, "coordinates", "40.0,-75.0", "coordinates")
    far, near, middle = (
        _location(40.5, -75.0, 1),
        _location(40.01, -75.0, 2),
        _location(40.1, -75.0, 3),
    )
    shown = in_radius_locations([far, near, middle, _location(None, None, 4)], place, 10)
    assert [loc["id"] for loc in shown] == ["loc2", "loc3"]
    # Along a meridian a degree is 2 * pi * 3958.7613 / 360 = 69.0934 miles: 0.01 degree is
    # 0.6909 miles, 0.1 degree 6.9093, shown to two decimals.
    assert [loc["distance"] for loc in shown] == [0.69, 6.91]


def test_a_location_on_the_radius_counts_and_the_list_is_capped() -> None:
    place = ResolvedPlace(40.0, -75.0, "coordinates", "40.0,-75.0", "coordinates")
    edge = miles((40.0, -75.0), (40.1, -75.0))  # the tests' own haversine
    assert in_radius_locations([_location(40.1, -75.0)], place, edge)
    many = [_location(40.0 + i / 10_000, -75.0, i) for i in range(MAX_LOCATIONS_PER_RESULT + 5)]
    assert len(in_radius_locations(many, place, 5)) == MAX_LOCATIONS_PER_RESULT
