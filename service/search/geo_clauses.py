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


def distance_sort(place: ResolvedPlace) -> Body:
    """Nearest location first (single point, arc, mode min: Lucene's fast distance sort)."""
    return {
        "_geo_distance": {
            "points": point(place),
            "order": "asc",
            "unit": "mi",
            "mode": "min",
            "distance_type": "arc",
        }
    }
