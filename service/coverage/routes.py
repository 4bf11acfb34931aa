"""POST /v2/providers/coverage (DESIGN 5.4)."""

from __future__ import annotations

from aiohttp import web

from service.coverage.compact import compact
from service.coverage.evaluate import evaluate, plan_statuses
from service.coverage.models import CoverageRequest
from service.coverage.store import read_facts
from service.web.jsonio import json_response
from service.web.keys import ES, INDEX_NAMES, TODAY
from service.web.middleware import requires_scope
from service.web.validation import read_model


@requires_scope("coverage:read")
async def check_coverage(http_request: web.Request) -> web.Response:
    request = await read_model(http_request, CoverageRequest)
    facts = await read_facts(http_request.app[ES], http_request.app[INDEX_NAMES], request)
    today = http_request.app[TODAY]()
    if request.view == "compact":
        return json_response(compact(plan_statuses(request, facts, today), facts))
    return json_response(evaluate(request, facts, today))
