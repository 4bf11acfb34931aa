"""Facets: the aggregations a search asks for, and their buckets read back as counts (pure)."""

from __future__ import annotations

from core.documents import Json
from core.index_contract import SEARCH_FIELDS as F
from service.search.places import ResolvedPlace
from service.search.responses import FacetCount, Facets
from service.search_kit.geo import point

DISTANCE_BANDS = [(0, 5), (5, 10), (10, 25), (25, None)]
FACET_SIZE = 20
RADIUS_EPSILON_MILES = 1e-6


def band_key(low: int, high: int | None) -> str:
    return f"{low}-{high}" if high is not None else f"{low}+"


def facet_aggregations(place: ResolvedPlace | None, radius_miles: float) -> Json:
    aggs: Json = {
        "specialty": {"terms": {"field": F.specialtyNames, "size": FACET_SIZE}},
        F.gender: {"terms": {"field": F.gender, "size": 5}},
        "language": {"terms": {"field": f"{F.languages}.display", "size": FACET_SIZE}},
    }
    if place is not None:
        aggs["distance"] = {
            "geo_distance": {
                "field": F.points,
                "origin": point(place.lat, place.lng),
                "unit": "mi",
                "ranges": _ranges_in_radius(radius_miles),
            }
        }
    return aggs


def _ranges_in_radius(radius_miles: float) -> list[Json]:
    """The bands cut at the radius: a provider counts in each band where it has a location inside
    the radius (two bands, twice), never for a location outside it. A band's upper end is
    exclusive and the radius inclusive, hence the epsilon."""
    end = radius_miles + RADIUS_EPSILON_MILES
    return [
        {"key": band_key(low, high), "from": low, "to": min(high, end) if high else end}
        for low, high in DISTANCE_BANDS
        if low <= radius_miles
    ]


def facets(aggregations: Json) -> Facets:
    def buckets(name: str) -> list[FacetCount]:
        return [
            {"value": b["key"], "count": b["doc_count"]}
            for b in aggregations.get(name, {}).get("buckets", [])
        ]

    result: Facets = {
        "specialty": buckets("specialty"),
        "gender": buckets("gender"),
        "language": buckets("language"),
    }
    if "distance" in aggregations:
        counts = {b["key"]: b["doc_count"] for b in aggregations["distance"]["buckets"]}
        result["distance"] = [
            {"value": key, "count": counts.get(key, 0)}
            for key in (band_key(lo, hi) for lo, hi in DISTANCE_BANDS)
        ]
    return result
