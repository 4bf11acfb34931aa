"""Nearest first without sorting the whole radius (pure).

A search sorted by distance over a wide radius in a dense place matches hundreds of thousands
of providers at national scale, and Elasticsearch computes the distance of each to sort them
(BENCHMARKS.md: the sort, not the filter, is the cost). The page it asks for is the nearest
few, and they lie close by: so the search first asks for the page inside a small ring around
the point, and counts the whole radius in the same search: the ring is a post filter, so only
the providers inside it are sorted, and an aggregation counts everything the query matches.
When the ring holds the whole page, its hits are exactly the whole radius's first ones (every
provider outside the ring is farther than every one inside it) and the count is the total;
otherwise the whole radius is searched as before. One search, not a page and a count side by
side: two searches may read the index on either side of a refresh (an update's), and a page
of the old providers with the new count is neither answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.documents import Json
from service.search.models import SearchRequest
from service.search.query import build_search
from service.search.question import Question
from service.search_kit.geo import radius_filter
from service.search_kit.limits import ANSWER_SOURCE

RING_MILES = 2.0  # holds a page almost anywhere a wide radius is expensive


RADIUS_COUNT = "inRadius"  # the aggregation that counts the whole radius


def ring_body(question: Question, source: Sequence[str] = ANSWER_SOURCE) -> Json | None:
    """The ring's page with the whole radius's count; None when the ring cannot answer (not
    sorted by distance, a radius no wider than the ring, facets over the whole radius)."""
    request, place = question.request, question.place
    if place is None or request.effective_sort != "distance" or request.facets:
        return None
    if request.radius_miles <= RING_MILES:
        return None
    return {
        **build_search(question, source=source),
        "post_filter": radius_filter(place.lat, place.lng, RING_MILES, request.min_confidence),
        "track_total_hits": _window(request),  # the ring counted only as far as it decides
        "aggs": {RADIUS_COUNT: {"filter": {"match_all": {}}}},
    }


def _window(request: SearchRequest) -> int:
    """How many hits the first page's answer reads (its offset and the page after it)."""
    return request.offset + request.window_size


def ring_answer(question: Question, ring: Json) -> Json | None:
    """The answer of the whole radius, when the ring held the whole page."""
    if int(ring["hits"]["total"]["value"]) < _window(question.request):
        return None
    total = {"value": int(ring["aggregations"][RADIUS_COUNT]["doc_count"]), "relation": "eq"}
    answer = {key: value for key, value in ring.items() if key != "aggregations"}
    return {**answer, "hits": {**ring["hits"], "total": total}}
