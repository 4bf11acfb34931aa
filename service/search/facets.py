"""Facets: the aggregations a search asks for, and their buckets read back as counts (pure)."""

from __future__ import annotations

from typing import Any

from service.search.geo_clauses import point, radius_filter
from service.search.models import FacetCount, Facets
from service.search.places import ResolvedPlace

Body = dict[str, Any]
DISTANCE_BANDS = [(0, 5), (5, 10), (10, 25), (25, None)]
FACET_SIZE = 20


def band_key(low: int, high: int | None) -> str:
    return f"{low}-{high}" if high is not None else f"{low}+"


def facet_aggregations(place: ResolvedPlace | None, radius_miles: float) -> Body:
    aggs: Body = {
        "specialty": {"terms": {"field": "specialtyNames", "size": FACET_SIZE}},
        "gender": {"terms": {"field": "gender", "size": 5}},
        "language": {"terms": {"field": "languages.display", "size": FACET_SIZE}},
    }
    if place is not None:
        ranges = [
            {"key": band_key(low, high), "from": low, **({"to": high} if high else {})}
            for low, high in DISTANCE_BANDS
        ]
        # Providers with a location in each band, counting only in-radius locations (a
        # provider with locations in two bands counts in both).
        bands = {
            "geo_distance": {
                "field": "locations.point",
                "origin": point(place),
                "unit": "mi",
                "ranges": ranges,
            },
            "aggs": {"providers": {"reverse_nested": {}}},
        }
        aggs["distance"] = {
            "nested": {"path": "locations"},
            "aggs": {
                "in_radius": {
                    "filter": radius_filter(place, radius_miles),
                    "aggs": {"bands": bands},
                }
            },
        }
    return aggs


def facets(aggregations: Body) -> Facets:
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
        counts = {
            b["key"]: b["providers"]["doc_count"]
            for b in aggregations["distance"]["in_radius"]["bands"]["buckets"]
        }
        result["distance"] = [
            {"value": key, "count": counts.get(key, 0)}
            for key in (band_key(lo, hi) for lo, hi in DISTANCE_BANDS)
        ]
    return result
