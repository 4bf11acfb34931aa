"""POST /v2/providers/coverage (DESIGN 5.4)."""

from __future__ import annotations

from aiohttp import web

from service.coverage.check import check_coverage
from service.coverage.models import CoverageRequest
from service.web.jsonio import json_response
from service.web.keys import ES, INDEX_NAMES, TODAY
from service.web.middleware import requires_scope
from service.web.validation import read_model


@requires_scope("coverage:read")
async def coverage(http_request: web.Request) -> web.Response:
    request = await read_model(http_request, CoverageRequest)
    app = http_request.app
    answer = await check_coverage(app[ES], app[INDEX_NAMES], request, today=app[TODAY]())
    return json_response(answer)
