"""POST /v2/providers/search (DESIGN 5.1)."""

from __future__ import annotations

from typing import Any

from aiohttp import web
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from service.search import rescue, store
from service.search.cursor import decode_cursor
from service.search.interpret import Interpretation, interpret
from service.search.models import NoResults, SearchRequest
from service.search.places import ResolvedPlace, resolve
from service.search.query import build_search
from service.search.results import search_response
from service.web.jsonio import json_response
from service.web.keys import ES, INDEX_NAMES
from service.web.middleware import requires_scope
from service.web.validation import read_model

Json = dict[str, Any]


@requires_scope("providers:read")
async def search_providers(http_request: web.Request) -> web.Response:
    request = await read_model(http_request, SearchRequest)
    cursor = None
    if request.cursor is not None:
        request, cursor = decode_cursor(request.cursor, request.page_size_given)
    interpretation = interpret(request.query or "")
    place = resolve(request.location) if request.location is not None else None
    body = build_search(
        request, interpretation, place, search_after=cursor.after if cursor else None
    )
    es, names = http_request.app[ES], http_request.app[INDEX_NAMES]
    no_results = None
    if cursor is None:
        response = await store.search(es, names, body)
        if _total(response) == 0:
            interpretation, response, no_results = await _rescue(
                es, names, request, interpretation, place, response
            )
    else:
        response = await store.search_in_time(es, names, body, cursor.pit)
    return json_response(
        search_response(
            request,
            interpretation,
            place,
            response,
            cursor_page=cursor is not None,
            no_results=no_results,
        )
    )


async def _rescue(
    es: AsyncElasticsearch,
    names: IndexNames,
    request: SearchRequest,
    interpretation: Interpretation,
    place: ResolvedPlace | None,
    response: Json,
) -> tuple[Interpretation, Json, NoResults | None]:
    """Nothing found: drop the words that match nothing and search again; if still nothing,
    say why (see service.search.rescue)."""
    if interpretation.text:
        counts = await store.msearch(
            es, names, rescue.word_count_bodies(request, interpretation, place)
        )
        dropped = rescue.words_to_drop(interpretation, counts)
        if dropped:
            interpretation = interpretation.without(dropped)
            response = await store.search(es, names, build_search(request, interpretation, place))
            if _total(response) > 0:
                return interpretation, response, None
    answers = await store.msearch(es, names, rescue.explain_bodies(request, interpretation, place))
    return interpretation, response, rescue.no_results(interpretation, place, answers)


def _total(response: Json) -> int:
    return int(response["hits"]["total"]["value"])
