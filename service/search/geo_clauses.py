"""Elasticsearch clauses about the searched point: the radius filter and distance sort (pure)."""

from __future__ import annotations

from typing import Any

from service.search.places import ResolvedPlace

Body = dict[str, Any]


def point(place: ResolvedPlace) -> dict[str, float]:
    return {"lat": place.lat, "lon": place.lng}


def radius_filter(place: ResolvedPlace, radius_miles: float) -> Body:
    """Providers with a location inside the radius."""
    return {"geo_distance": {"distance": f"{radius_miles}mi", "points": point(place)}}


METRES_PER_MILE = 1609.344


def distance_sort(place: ResolvedPlace) -> Body:
    """Nearest location first. One point, ascending, arc, mode min and metres (the default unit)
    is exactly what Elasticsearch hands to Lucene's distance sort, which skips documents outside
    the current top's bounding box; any other unit falls back to computing every distance. Sort
    values are therefore metres."""
    return {
        "_geo_distance": {
            "points": point(place),
            "order": "asc",
            "mode": "min",
            "distance_type": "arc",
        }
    }
