"""POST /v2/providers/search (DESIGN 5.1)."""

from __future__ import annotations

from aiohttp import web

from service.search.models import SearchRequest
from service.search.search import search_providers
from service.web.jsonio import json_response
from service.web.keys import ES, INDEX_NAMES, TODAY
from service.web.middleware import requires_scope
from service.web.validation import read_model


@requires_scope("providers:read")
async def search(http_request: web.Request) -> web.Response:
    request = await read_model(http_request, SearchRequest)
    app = http_request.app
    answer = await search_providers(app[ES], app[INDEX_NAMES], request, today=app[TODAY]())
    return json_response(answer)
