"""Search request -> Elasticsearch body. Pure: no I/O, unit-tested as plain dicts.

Shape: a bool query whose filters hold the radius (a ``geo_distance`` on the points of the
provider's locations, those at or above ``minConfidence``: service.search_kit.geo) and the
structured filters; the free text is matched word by word across
fields with ``multi_match`` (fuzzy), so a name and a hospital in one box ("Johnson Mount Sinai")
both count; phrase and exact-name clauses and a distance decay add to the score.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.documents import Json
from core.index_contract import SEARCH_FIELDS as F
from core.network import in_network_clause
from core.plans import canonical_bid_id, plan_doc_id, plan_key
from core.text import normalize
from service.search.facets import facet_aggregations
from service.search.interpret import Interpretation
from service.search.models import SearchRequest
from service.search.places import ResolvedPlace
from service.search.question import Question
from service.search.specialty_clauses import (
    SPECIALTY_BOOST,
    concept_boost,
    concept_rank,
    specialty_clause,
    specialty_rank,
)
from service.search_kit.geo import distance_sort, point, points_field, radius_filter
from service.search_kit.limits import ANSWER_SOURCE

TEXT_FIELDS = [
    f"{F.fullName}^3",
    f"{F.names}^2",
    f"{F.organizations}^1.5",
    F.specialtyText,
    F.credentials,
    F.languageText,
]
CLOSENESS_WEIGHT = 3.0
FUZZY_WEIGHT = 0.8  # a typo match scores a little below the exact word
EXACT_NAME_WEIGHT = 20.0  # above a phrase in a longer name ("Thelma Vega LLC")
PHRASE_WEIGHT = 4.0


def _closeness(place: ResolvedPlace, radius_miles: float, min_confidence: int) -> Json:
    """Score in (0, CLOSENESS_WEIGHT]: nearer providers rank higher among equal text matches
    (the nearest location that counts)."""
    return {
        "function_score": {
            "functions": [
                {
                    "gauss": {
                        points_field(min_confidence): {
                            "origin": point(place.lat, place.lng),
                            "scale": f"{max(radius_miles / 2, 0.5)}mi",
                        },
                        "multi_value_mode": "min",
                    }
                }
            ],
            "boost_mode": "replace",
            "boost": CLOSENESS_WEIGHT,
        }
    }


def word_match(word: str) -> Json:
    """A word anywhere exactly, or within one or two edits (by length) in a name."""
    return {
        "dis_max": {
            "queries": [
                {"multi_match": {"query": word, "fields": TEXT_FIELDS}},
                {
                    "match": {
                        F.typoTolerant: {
                            "query": word,
                            "fuzziness": "AUTO",
                            "prefix_length": 1,
                            "max_expansions": 20,
                            "boost": FUZZY_WEIGHT,
                        }
                    }
                },
            ]
        }
    }


def text_clauses(interpretation: Interpretation) -> tuple[Json | None, list[Json]]:
    """(required clause, score-only clauses) for the free text.

    Each free word is matched across fields (fuzzy); with more than two words 75 % must match,
    so one stray word does not empty the result. The whole name as written (titles and fillers
    left out) scores first: exactly, then as a phrase in a name or an organisation
    ("Massachusetts General Hospital" before hospitals that share two of its words).
    """
    free = interpretation.text.split()
    if not free:
        return None, []
    required = {"bool": {"should": [word_match(w) for w in free], "minimum_should_match": "2<75%"}}
    name = interpretation.name_text or interpretation.text
    bonus: list[Json] = [
        {"term": {F.exactNames: {"value": name, "boost": EXACT_NAME_WEIGHT}}},
        {"match_phrase": {F.fullName: {"query": name, "slop": 1, "boost": PHRASE_WEIGHT}}},
        {"match_phrase": {F.organizations: {"query": name, "slop": 1, "boost": PHRASE_WEIGHT}}},
    ]
    if interpretation.specialties:  # specialty words may be part of a name too
        bonus.append({"multi_match": {"query": name, "fields": TEXT_FIELDS[:3]}})
    return required, bonus


def filtered_languages(question: Question) -> list[tuple[str, list[str]]]:
    """(language, the listings that count as it) of every language the question filters on."""
    found = []
    if question.interpretation.language_mode == "filter":
        found += [(m.language, list(m.listed_as)) for m in question.interpretation.languages]
    if question.request.language:
        found.append((question.request.language, [question.request.language]))
    return found


def _languages(interpretation: Interpretation) -> Json:
    listed = [name for match in interpretation.languages for name in match.listed_as]
    return {"terms": {F.languages: listed}}


def _filters(question: Question) -> list[Json]:
    request, interpretation = question.request, question.interpretation
    filters: list[Json] = []
    if interpretation.specialty_mode == "filter":
        filters.append(specialty_clause(interpretation.taxonomy_codes))
    if interpretation.concept_mode == "filter":
        first, also = interpretation.concept_codes
        filters.append(specialty_clause(first + also))
    if interpretation.language_mode == "filter":
        filters.append(_languages(interpretation))
    if request.taxonomyCode:
        filters.append({"term": {F.taxonomyCodes: request.taxonomyCode}})
    if request.specialty:  # a phrase within one specialty name, not words across several
        phrase = normalize(request.specialty)
        filters.append({"match_phrase": {F.specialtyText: {"query": phrase}}})
    if request.language:
        filters.append({"term": {F.languages: request.language}})
    if request.gender:
        filters.append({"term": {F.gender: request.gender}})
    if request.entityType:
        filters.append({"term": {F.entityType: request.entityType}})
    if request.pcpEligible is not None:
        filters.append({"term": {F.pcpEligible: request.pcpEligible}})
    if question.place is None and request.min_confidence > 1:  # with one: the radius's points
        filters.append({"range": {F.bestConfidence: {"gte": request.min_confidence}}})
    if request.contractYear is not None:
        bid = canonical_bid_id(request.bidId) if request.bidId else None
        key = plan_doc_id(request.contractYear, plan_key(bid, request.payerPlanId))
        filters.append(in_network_clause(key, question.today))
    return filters


def _ranking(question: Question) -> list[Json]:
    request, interpretation = question.request, question.interpretation
    should: list[Json] = []
    codes = interpretation.taxonomy_codes + ([request.taxonomyCode] if request.taxonomyCode else [])
    if interpretation.specialty_mode == "boost":
        should.append(specialty_clause(interpretation.taxonomy_codes, boost=SPECIALTY_BOOST))
    if codes:
        should += specialty_rank(codes)
    if interpretation.concept_mode == "filter":
        should += concept_rank(*interpretation.concept_codes, practising=not codes)
    elif interpretation.concept_mode == "boost":
        should += concept_boost(*interpretation.concept_codes)
    if interpretation.language_mode == "boost":
        should.append({"constant_score": {"filter": _languages(interpretation), "boost": 2.0}})
    return should


def request_filters(question: Question) -> list[Json]:
    """Every filter of the request (the radius too), without the text and the ranking."""
    filters = _filters(question)
    if question.place is not None:
        filters.append(_radius(question.place, question.request))
    return filters


def _radius(place: ResolvedPlace, request: SearchRequest) -> Json:
    return radius_filter(place.lat, place.lng, request.radius_miles, request.min_confidence)


def query_clause(question: Question) -> Json:
    """The query of a search; without a place, neither radius nor closeness."""
    request, place = question.request, question.place
    required, should = text_clauses(question.interpretation)
    filters = _filters(question)
    should += _ranking(question)
    if place is not None:
        filters.append(_radius(place, request))
        if request.effective_sort == "relevance":  # sorted by distance, a score is unused
            should.append(_closeness(place, request.radius_miles, request.min_confidence))
    must = [required] if required else []
    return {"bool": {"must": must, "filter": filters, "should": should}}


def _sort(question: Question) -> list[Json]:
    request, place = question.request, question.place
    if request.effective_sort == "distance" and place is not None:
        return [distance_sort(place.lat, place.lng, request.min_confidence), {F.npi: "asc"}]
    return [{"_score": "desc"}, {F.npi: "asc"}]


def build_search(
    question: Question,
    *,
    search_after: list[Any] | None = None,
    source: Sequence[str] = ANSWER_SOURCE,
) -> Json:
    """``source``: the stored fields the hits carry (service.search_kit.limits)."""
    request = question.request
    body: Json = {
        "query": query_clause(question),
        "sort": _sort(question),
        "size": request.pageSize if search_after is not None else request.window_size,
        "track_total_hits": True,
        "_source": list(source),
    }
    if search_after is not None:
        body["search_after"] = search_after
    else:
        body["from"] = request.offset
    if request.facets:
        body["aggs"] = facet_aggregations(
            question.place, request.radius_miles, request.min_confidence
        )
    return body
