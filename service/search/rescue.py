"""Never a silent zero (pure): the follow-up questions asked when a search finds nothing, and
what their answers say.

1. Relax: count, for each free word, the providers it matches with the rest of the request
   (same filters, same radius). When none matches and NUCC's definitions read the words
   confidently as a concept, search by that concept; else words that match nothing are
   dropped, and said so, when something else is left to search by.
2. Explain: when still nothing, say when a language asked for is listed by no provider at
   all, else count the matches beyond the radius with the nearest one's distance, else those
   ``minConfidence`` left out (it is never relaxed: a listing is not believed more for a
   search having found nothing, but how many it left out is said); suggest a
   term of the vocabulary the words misspell, else names that exist (Elasticsearch's term
   suggester) for the words that are not medical. ``results`` stay empty: the answer only says
   how to get further.
"""

from __future__ import annotations

import math

from core.documents import Json
from core.index_contract import SEARCH_FIELDS as F
from service.search.interpret import Interpretation
from service.search.query import filtered_languages, query_clause, request_filters, word_match
from service.search.question import Question
from service.search.responses import NoResults
from service.search.vocabulary import medical_words, vocabulary_suggestion
from service.search_kit.geo import distance_sort, points_field, sorted_miles
from service.search_kit.limits import MAX_RADIUS_MILES


def word_count_bodies(question: Question) -> list[Json]:
    """One body per free word: does anything match it under the request's other filters?"""
    filters = request_filters(question)
    return [
        {
            "size": 0,
            "track_total_hits": 1,
            "terminate_after": 1,
            "query": {"bool": {"filter": [*filters, word_match(word)]}},
        }
        for word in question.interpretation.text.split()
    ]


def relaxed(question: Question, counts: list[Json]) -> Question | None:
    """The question to ask instead, when some free words matched nothing: read by NUCC's
    definitions when none matched and they have a confident reading; else without the words
    that matched nothing, when something else is left to search by (another word, a
    specialty, a concept or a language); None when nothing can be relaxed."""
    interpretation = question.interpretation
    free = interpretation.text.split()
    unmatched = [w for w, answer in zip(free, counts, strict=True) if _total(answer) == 0]
    if not unmatched:
        return None
    if len(unmatched) == len(free) and interpretation.fallback is not None:
        return question.read_by_definitions()
    left = (
        len(unmatched) < len(free)
        or interpretation.specialties
        or interpretation.concepts
        or interpretation.languages
    )
    return question.without_words(unmatched) if left else None


def explain_bodies(question: Question) -> list[Json]:
    """[names the suggester knows] + [the nearest match beyond the radius, with a place] +
    [the matches at any confidence, with a minConfidence] + [whether any provider lists it,
    for each language filtered on]."""
    interpretation, place = question.interpretation, question.place
    min_confidence = question.request.min_confidence
    bodies: list[Json] = [
        {
            "size": 0,
            "suggest": {
                "text": interpretation.text or " ",
                "words": {
                    "term": {
                        "field": F.typoTolerant,
                        "suggest_mode": "popular",
                        "prefix_length": 0,
                        "min_word_length": 3,
                        "size": 1,
                    }
                },
            },
        }
    ]
    if place is not None:
        # Matches with a point (that counts) to be nearest: one without has no distance.
        placed = {"exists": {"field": points_field(min_confidence)}}
        anywhere = query_clause(question.anywhere())
        bodies.append(
            {
                "size": 1,
                "_source": False,
                "track_total_hits": True,
                "query": {"bool": {"must": [anywhere], "filter": [placed]}},
                "sort": [distance_sort(place.lat, place.lng, min_confidence)],
            }
        )
    if min_confidence > 1:
        bodies.append(
            {
                "size": 0,
                "track_total_hits": True,
                "query": query_clause(question.any_confidence()),
            }
        )
    bodies += [
        {"size": 0, "track_total_hits": 1, "query": {"terms": {F.languages: listed}}}
        for _, listed in filtered_languages(question)
    ]
    return bodies


def no_results(question: Question, answers: list[Json]) -> NoResults:
    interpretation, place = question.interpretation, question.place
    explained: NoResults = {"reason": "no_match"}
    suggestion = _did_you_mean(interpretation, answers[0])
    if suggestion is not None:
        explained["didYouMean"] = suggestion
    languages = filtered_languages(question)
    counts = answers[len(answers) - len(languages) :] if languages else []
    unlisted = [
        name for (name, _), count in zip(languages, counts, strict=True) if not _total(count)
    ]
    if unlisted:
        explained["reason"] = "language_not_listed"
        explained["unlistedLanguages"] = unlisted
        return explained
    beyond = answers[1] if place is not None else {}
    if question.request.min_confidence > 1:
        left_out = _total(answers[2 if place is not None else 1])
        if left_out:
            explained["reason"] = "below_min_confidence"
            explained["belowMinConfidence"] = left_out
    if _total(beyond) > 0:
        nearest = sorted_miles(beyond["hits"]["hits"][0]["sort"][0])
        needed = math.ceil(nearest + 0.01)
        explained["reason"] = "outside_radius"
        explained["beyondRadius"] = {
            "count": _total(beyond),
            "nearestMiles": round(nearest, 2),
            "radiusMiles": float(needed) if needed <= MAX_RADIUS_MILES else None,
        }
    return explained


def _did_you_mean(interpretation: Interpretation, answer: Json) -> str | None:
    """A term of the vocabulary first; else names that exist, for the words that are not
    medical (a medical word is never replaced by a person's or an organisation's name)."""
    if not interpretation.text:
        return None
    understood = vocabulary_suggestion(interpretation.text)
    if understood is not None:
        return understood
    medical = medical_words()
    corrected = [
        entry["options"][0]["text"]
        if entry.get("options") and entry["text"] not in medical
        else entry["text"]
        for entry in answer.get("suggest", {}).get("words", [])
    ]
    suggestion = " ".join(corrected)
    return suggestion if corrected and suggestion != interpretation.text else None


def _total(answer: Json) -> int:
    return int(answer.get("hits", {}).get("total", {}).get("value", 0))
