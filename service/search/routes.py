"""POST /v2/providers/search (DESIGN 5.1)."""

from __future__ import annotations

from aiohttp import web

from service.search import store
from service.search.cursor import decode_cursor
from service.search.interpret import interpret
from service.search.models import SearchRequest
from service.search.places import resolve
from service.search.query import build_search
from service.search.results import search_response
from service.web.jsonio import json_response
from service.web.keys import ES, INDEX_NAMES
from service.web.middleware import requires_scope
from service.web.validation import read_model


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
    if cursor is None:
        response = await store.search(es, names, body)
    else:
        response = await store.search_in_time(es, names, body, cursor.pit)
    return json_response(
        search_response(request, interpretation, place, response, cursor_page=cursor is not None)
    )
