"""Elasticsearch's answer -> the search response (providers with their in-radius locations)."""

from __future__ import annotations

from typing import cast

from core.documents import Json, Location
from core.search_fields import locations_of, provider_of
from service.search.cursor import encode_cursor
from service.search.facets import facets
from service.search.places import ResolvedPlace
from service.search.question import Question
from service.search.responses import (
    InterpretedQuery,
    NoResults,
    SearchResponse,
    SearchResult,
    SearchResultLocation,
)
from service.search_kit.geo import counts, miles_inside

MAX_LOCATIONS_PER_RESULT = 100


def in_radius_locations(
    locations: list[Location], place: ResolvedPlace, radius_miles: float, min_confidence: int = 1
) -> list[SearchResultLocation]:
    """The locations that count inside the radius (service.search_kit.geo), nearest first,
    each with its distance."""
    found: list[tuple[float, Location]] = []
    for location in locations:
        if not counts(location, min_confidence):
            continue
        miles = miles_inside(place.lat, place.lng, location, radius_miles)
        if miles is not None:
            found.append((miles, location))
    found.sort(key=lambda entry: entry[0])
    return [
        cast(SearchResultLocation, {**location, "distance": round(miles, 2)})
        for miles, location in found[:MAX_LOCATIONS_PER_RESULT]
    ]


def provider_results(
    hits: list[Json], place: ResolvedPlace | None, radius_miles: float, min_confidence: int = 1
) -> list[SearchResult]:
    results: list[SearchResult] = []
    for hit in hits:
        source = hit["_source"]
        locations = locations_of(source)
        shown = (
            in_radius_locations(locations, place, radius_miles, min_confidence)
            if place is not None
            else cast(
                list[SearchResultLocation],
                [location for location in locations if counts(location, min_confidence)],
            )
        )
        results.append(cast(SearchResult, {**provider_of(source), "locations": shown}))
    return results


def interpreted_query(question: Question) -> InterpretedQuery:
    interpretation, place = question.interpretation, question.place
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
        "specialtyMode": interpretation.specialty_mode,
        "concepts": [
            {
                "term": m.term,
                "concept": m.concept.name,
                "kind": m.concept.kind,
                "source": m.concept.source,
                "firstChoice": list(m.concept.first),
                "alsoTreats": list(m.concept.also),
                "correctedFrom": m.corrected_from,
            }
            for m in interpretation.concepts
        ],
        "conceptMode": interpretation.concept_mode,
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
        "radiusMiles": question.request.radius_miles if place is not None else None,
        "minConfidence": question.request.min_confidence,
    }


def search_response(
    question: Question,
    response: Json,
    *,
    cursor_page: bool,
    no_results: NoResults | None = None,
) -> SearchResponse:
    request, place = question.request, question.place
    hits: list[Json] = response["hits"]["hits"]
    total = int(response["hits"]["total"]["value"])
    offset = 0 if cursor_page else request.offset
    more = len(hits) == request.pageSize if cursor_page else offset + len(hits) < total
    payload: SearchResponse = {
        "results": provider_results(hits, place, request.radius_miles, request.min_confidence),
        "pageSize": request.pageSize,
        "offset": offset,
        "totalCount": total,
        "interpretedQuery": interpreted_query(question),
        "nextCursor": encode_cursor(request, response.get("pit_id"), hits[-1]["sort"])
        if more and hits
        else None,
    }
    if request.facets and "aggregations" in response:
        payload["facets"] = facets(response["aggregations"])
    if no_results is not None:
        payload["noResults"] = no_results
    return payload
