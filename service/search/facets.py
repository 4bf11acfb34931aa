"""Facets: the aggregations a search asks for, and their buckets read back as counts (pure)."""

from __future__ import annotations

from core.confidence import SCORES
from core.documents import Json
from core.index_contract import SEARCH_FIELDS as F
from service.search.places import ResolvedPlace
from service.search.responses import FacetCount, Facets
from service.search_kit.geo import point, points_field, radius_filter

DISTANCE_BANDS = [(0, 5), (5, 10), (10, 25), (25, None)]
FACET_SIZE = 20
RADIUS_EPSILON_MILES = 1e-6


def band_key(low: int, high: int | None) -> str:
    return f"{low}-{high}" if high is not None else f"{low}+"


def facet_aggregations(
    place: ResolvedPlace | None, radius_miles: float, min_confidence: int = 1
) -> Json:
    aggs: Json = {
        "specialty": {"terms": {"field": F.specialtyNames, "size": FACET_SIZE}},
        F.gender: {"terms": {"field": F.gender, "size": 5}},
        "language": {"terms": {"field": f"{F.languages}.display", "size": FACET_SIZE}},
    }
    if place is not None:
        aggs["distance"] = {
            "geo_distance": {
                "field": points_field(min_confidence),
                "origin": point(place.lat, place.lng),
                "unit": "mi",
                "ranges": _ranges_in_radius(radius_miles),
            }
        }
    aggs["confidence"] = {"filters": {"filters": _at_least(place, radius_miles)}}
    return aggs


def _at_least(place: ResolvedPlace | None, radius_miles: float) -> Json:
    """For each score, the providers with a location scoring at least it (inside the radius,
    with a place): the count by best score is the difference of two of them, exactly."""
    filters: Json = {}
    for score in SCORES:
        if score == SCORES[0]:
            filters[str(score)] = {"match_all": {}}
        elif place is None:
            filters[str(score)] = {"range": {F.bestConfidence: {"gte": score}}}
        else:
            filters[str(score)] = radius_filter(place.lat, place.lng, radius_miles, score)
    return filters


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
        "confidence": _by_best_score(aggregations["confidence"]["buckets"]),
    }
    if "distance" in aggregations:
        counts = {b["key"]: b["doc_count"] for b in aggregations["distance"]["buckets"]}
        result["distance"] = [
            {"value": key, "count": counts.get(key, 0)}
            for key in (band_key(lo, hi) for lo, hi in DISTANCE_BANDS)
        ]
    return result


def _by_best_score(at_least: Json) -> list[FacetCount]:
    """Providers by the best score of the locations that count, from ``_at_least``'s counts."""
    counts = [int(at_least[str(score)]["doc_count"]) for score in SCORES] + [0]
    return [
        {"value": str(score), "count": counts[i] - counts[i + 1]} for i, score in enumerate(SCORES)
    ]
