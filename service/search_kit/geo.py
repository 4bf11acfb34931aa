"""The searched point: the radius filter, the distance sort and the in-radius rule (pure), each
over the locations that count: those at or above a confidence score (``minConfidence``; 1, the
default, every location), whose points are one field of their own (``points_field``)."""

from __future__ import annotations

from core.documents import Json, Location
from core.geo import haversine_miles
from core.index_contract import SEARCH_FIELDS as F
from core.search_fields import CONFIDENT_POINTS

_CONFIDENT = F.inside(F.confidentPoints)

METRES_PER_MILE = 1609.344
# Elasticsearch measures from coordinates rounded to about a centimetre; a location it found
# inside the radius must not be dropped for that difference.
RADIUS_TOLERANCE_MILES = 0.001


def point(lat: float, lng: float) -> dict[str, float]:
    return {"lat": lat, "lon": lng}


def points_field(min_confidence: int = 1) -> str:
    """The points of the locations scoring ``min_confidence`` or more: every point at 1."""
    if min_confidence <= 1:
        return F.points
    return str(getattr(_CONFIDENT, CONFIDENT_POINTS[min_confidence]))


def counts(location: Location, min_confidence: int) -> bool:
    """Whether a stored location counts for a search asking at least ``min_confidence`` (at 1
    every location does)."""
    return min_confidence <= 1 or location["confidence"]["score"] >= min_confidence


def radius_filter(lat: float, lng: float, miles: float, min_confidence: int = 1) -> Json:
    """Providers with a location (that counts) inside the radius. The points of a score hold
    doc values alone (core.documents.ConfidentPoints): the providers with any point inside,
    found by ``points``' index, are checked on them."""
    field = points_field(min_confidence)
    inside = {"geo_distance": {"distance": f"{miles}mi", field: point(lat, lng)}}
    if field == F.points:
        return inside
    return {"bool": {"filter": [radius_filter(lat, lng, miles), inside]}}


def distance_sort(lat: float, lng: float, min_confidence: int = 1) -> Json:
    """Nearest location first. One point, ascending, arc, mode min and metres (the default unit)
    is exactly what Elasticsearch hands to Lucene's distance sort, which skips documents outside
    the current top's bounding box; any other unit falls back to computing every distance. Sort
    values are therefore metres (``sorted_miles``); the nearest location that counts."""
    return {
        "_geo_distance": {
            points_field(min_confidence): point(lat, lng),
            "order": "asc",
            "mode": "min",
            "distance_type": "arc",
        }
    }


def sorted_miles(sort_value: float) -> float:
    """The miles of ``distance_sort``'s sort value."""
    return float(sort_value) / METRES_PER_MILE


def miles_inside(lat: float, lng: float, location: Location, radius_miles: float) -> float | None:
    """The location's distance when it is inside the radius (the formula and earth radius of
    Elasticsearch's arc distance, so the nearest equals the distance sort's value); None when
    it is outside or has no coordinates."""
    there_lat, there_lng = location["address"]["lat"], location["address"]["lng"]
    if there_lat is None or there_lng is None:
        return None
    miles = haversine_miles(lat, lng, there_lat, there_lng)
    return miles if miles <= radius_miles + RADIUS_TOLERANCE_MILES else None
