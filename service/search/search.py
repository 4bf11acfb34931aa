"""The steps of one search, in order: read the cursor, interpret the words, resolve the place,
query (nearest first from a small ring when it holds the page: nearest.py); when nothing is
found, drop the words that match nothing and query again, else explain the empty answer
(service.search.rescue); then answer."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from elasticsearch import AsyncElasticsearch

from core.documents import Json
from core.index_contract import IndexNames
from service.search import rescue
from service.search.cursor import decode_cursor
from service.search.models import SearchRequest
from service.search.nearest import ring_answer, ring_body
from service.search.query import build_search
from service.search.question import Question, read_question
from service.search.responses import SearchResponse
from service.search.results import search_response
from service.search_kit import store
from service.search_kit.limits import ANSWER_SOURCE


async def search_providers(
    es: AsyncElasticsearch, names: IndexNames, request: SearchRequest, *, today: date
) -> SearchResponse:
    cursor = None
    if request.cursor is not None:
        request, cursor = decode_cursor(request.cursor, request.page_size_given)
    question = read_question(request, today)
    if cursor is not None:
        body = build_search(question, search_after=cursor.after)
        page = await store.search_in_time(es, names, body, cursor.pit)
        return search_response(question, page, cursor_page=True)
    response = await _first_page(es, names, question)
    if _total(response) > 0:
        return search_response(question, response, cursor_page=False)
    return await _rescue(es, names, question, response)


async def question_hits(
    es: AsyncElasticsearch,
    names: IndexNames,
    request: SearchRequest,
    *,
    today: date,
    source: Sequence[str],
) -> Json:
    """The question -> hits API: the Elasticsearch answer of an offset page, read and ranked
    as a search reads and ranks it (words that match nothing dropped, as the answer would),
    its hits carrying ``source`` (service.search_kit.limits). The FHIR API's ``_text`` answers
    them as resources of its own."""
    question = read_question(request, today)
    response = await _first_page(es, names, question, source)
    if _total(response) > 0:
        return response
    dropped = await _without_unmatched_words(es, names, question, source)
    return response if dropped is None else dropped[1]


async def _first_page(
    es: AsyncElasticsearch,
    names: IndexNames,
    question: Question,
    source: Sequence[str] = ANSWER_SOURCE,
) -> Json:
    """Nearest first from the ring around the point when it holds the page (nearest.py)."""
    ring = ring_body(question, source)
    if ring is not None:
        answer = ring_answer(question, await store.search(es, names, ring))
        if answer is not None:
            return answer
    return await store.search(es, names, build_search(question, source=source))


async def _without_unmatched_words(
    es: AsyncElasticsearch,
    names: IndexNames,
    question: Question,
    source: Sequence[str] = ANSWER_SOURCE,
) -> tuple[Question, Json] | None:
    """The question without the words that match nothing, and its first page; None when
    every word matches something (or there are none)."""
    if not question.interpretation.text:
        return None
    counts = await store.msearch(es, names, rescue.word_count_bodies(question))
    relaxed = rescue.relaxed(question, counts)
    if relaxed is None:
        return None
    return relaxed, await _first_page(es, names, relaxed, source)


async def _rescue(
    es: AsyncElasticsearch, names: IndexNames, question: Question, response: Json
) -> SearchResponse:
    dropped = await _without_unmatched_words(es, names, question)
    if dropped is not None:
        question, response = dropped
        if _total(response) > 0:
            return search_response(question, response, cursor_page=False)
    answers = await store.msearch(es, names, rescue.explain_bodies(question))
    explained = rescue.no_results(question, answers)
    return search_response(question, response, cursor_page=False, no_results=explained)


def _total(response: Json) -> int:
    return int(response["hits"]["total"]["value"])
