"""POST /v2/providers/search (DESIGN 5.1)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from service.jsonio import json_response
from service.keys import ES, INDEX_NAMES
from service.middleware import requires_scope
from service.search.backend import SearchBackend
from service.search.cursor import CursorState, InvalidCursor, decode_cursor, encode_cursor
from service.search.interpret import interpret
from service.search.models import SearchRequest
from service.search.places import ResolvedPlace, UnknownPlace, resolve
from service.search.query import build_search
from service.search.results import facets, interpreted_query, provider_results
from service.validation import invalid_request, read_model


def _from_cursor(request: SearchRequest) -> tuple[SearchRequest, CursorState | None]:
    if request.cursor is None:
        return request, None
    extra = request.model_fields_set - {"cursor", "pageSize"}
    if extra:
        raise invalid_request(
            [
                {
                    "field": sorted(extra)[0],
                    "message": "a cursor page takes only 'cursor' and 'pageSize'",
                }
            ]
        )
    page_size = request.pageSize if "pageSize" in request.model_fields_set else None
    try:
        return decode_cursor(request.cursor, page_size)
    except InvalidCursor as error:
        raise invalid_request([{"field": "cursor", "message": str(error)}]) from None


def _place(request: SearchRequest) -> ResolvedPlace | None:
    if request.location is None:
        return None
    try:
        return resolve(request.location)
    except UnknownPlace as error:
        raise invalid_request([{"field": "location", "message": str(error)}]) from None


@requires_scope("providers:read")
async def search_providers(http_request: web.Request) -> web.Response:
    request, cursor = _from_cursor(await read_model(http_request, SearchRequest))
    interpretation = interpret(request.query or "")
    place = _place(request)
    backend = SearchBackend(http_request.app[ES], http_request.app[INDEX_NAMES])
    body = build_search(
        request, interpretation, place, search_after=cursor.after if cursor else None
    )
    if cursor is None:
        response = await backend.search(body)
    else:
        response = await backend.search_in_time(body, cursor.pit)
    hits: list[dict[str, Any]] = response["hits"]["hits"]
    total = int(response["hits"]["total"]["value"])
    offset = request.offset if cursor is None else 0
    more = (offset + len(hits) < total) if cursor is None else len(hits) == request.pageSize
    payload: dict[str, Any] = {
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
    return json_response(payload)
