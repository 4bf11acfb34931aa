"""Elasticsearch's answer -> the search response (providers with their in-radius locations)."""

from __future__ import annotations

from typing import Any, cast

from service.search.cursor import encode_cursor
from service.search.facets import facets
from service.search.interpret import Interpretation
from service.search.models import (
    InterpretedQuery,
    NoResults,
    SearchRequest,
    SearchResponse,
    SearchResult,
    SearchResultLocation,
)
from service.search.places import ResolvedPlace
from service.search.query import specialty_mode

Json = dict[str, Any]


def _locations(hit: Json, place: ResolvedPlace | None) -> list[SearchResultLocation]:
    if place is None:
        return [entry["location"] for entry in hit["_source"].get("locations", [])]
    inner = hit.get("inner_hits", {}).get("in_radius", {}).get("hits", {}).get("hits", [])
    return [
        cast(
            SearchResultLocation,
            {**entry["_source"]["location"], "distance": round(float(entry["sort"][0]), 2)},
        )
        for entry in inner
    ]


def provider_results(hits: list[Json], place: ResolvedPlace | None) -> list[SearchResult]:
    return [
        cast(SearchResult, {**hit["_source"]["provider"], "locations": _locations(hit, place)})
        for hit in hits
    ]


def interpreted_query(
    interpretation: Interpretation, place: ResolvedPlace | None, radius_miles: float | None
) -> InterpretedQuery:
    return {
        "text": interpretation.original,
        "freeText": interpretation.text,
        "specialties": [
            {
                "term": m.term,
                "label": m.label,
                "taxonomyCodes": list(m.codes),
                "correctedFrom": m.corrected_from,
            }
            for m in interpretation.specialties
        ],
        "specialtyMode": specialty_mode(interpretation),
        "languages": [{"term": m.term, "language": m.language} for m in interpretation.languages],
        "languageMode": interpretation.language_mode,
        "droppedWords": list(interpretation.dropped),
        "location": None
        if place is None
        else {
            "lat": place.lat,
            "lng": place.lng,
            "resolvedFrom": place.resolved_from,
            "label": place.label,
            "source": place.source,
        },
        "radiusMiles": radius_miles if place is not None else None,
    }


def search_response(
    request: SearchRequest,
    interpretation: Interpretation,
    place: ResolvedPlace | None,
    response: Json,
    *,
    cursor_page: bool,
    no_results: NoResults | None = None,
) -> SearchResponse:
    hits: list[Json] = response["hits"]["hits"]
    total = int(response["hits"]["total"]["value"])
    offset = 0 if cursor_page else request.offset
    more = len(hits) == request.pageSize if cursor_page else offset + len(hits) < total
    payload: SearchResponse = {
        "results": provider_results(hits, place),
        "pageSize": request.pageSize,
        "offset": offset,
        "totalCount": total,
        "interpretedQuery": interpreted_query(
            interpretation, place, request.radius_miles if place else None
        ),
        "nextCursor": encode_cursor(request, response.get("pit_id"), hits[-1]["sort"])
        if more and hits
        else None,
    }
    if request.facets and "aggregations" in response:
        payload["facets"] = facets(response["aggregations"])
    if no_results is not None:
        payload["noResults"] = no_results
    return payload
