"""POST /v2/providers/search (DESIGN 5.1)."""

from __future__ import annotations

import asyncio

from aiohttp import web

from service.search import vocabulary
from service.search.models import SearchRequest
from service.search.responses import SearchResponse
from service.search.search import search_providers
from service.web.contract import JSON, POST_ERRORS, Feature, Operation, Route, schema_ref
from service.web.middleware import requires_scope
from service.web.validation import answer_body


async def preload_vocabulary(_app: web.Application) -> None:
    await asyncio.to_thread(vocabulary.preload)


@requires_scope("providers:read")
async def search(http_request: web.Request) -> web.Response:
    return await answer_body(http_request, SearchRequest, search_providers)


_MANHATTAN = {"lat": 40.7128, "lng": -74.006}
FEATURE = Feature(
    routes=(
        Route(
            "search",
            "POST",
            "/providers/search",
            search,
            Operation(
                "Search providers",
                "Free text (names, organisations, specialties, lay terms) and/or a place; one "
                "result per provider with its locations inside the radius, nearest first.",
                "providers",
                {200: (JSON, schema_ref("SearchResponse"))},
                (*POST_ERRORS, 404),
                request="SearchRequest",
                examples={
                    "name and place": {"query": "Dr. Johnson Mount Sinai", "location": _MANHATTAN},
                    "specialty near a ZIP": {"query": "cardio", "location": "10013", "radius": 10},
                    "filters": {"location": {"city": "Austin", "state": "TX"}, "gender": "F"},
                },
            ),
        ),
    ),
    requests=(SearchRequest,),
    answers=(SearchResponse,),
    startup=(preload_vocabulary,),
)
