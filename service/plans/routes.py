"""POST /v2/plans/search and GET /v2/plans/{bidId} (DESIGN 5.7)."""

from __future__ import annotations

from aiohttp import web
from pydantic import ValidationError

from service.plans.models import PlanReadParams, PlanSearchRequest
from service.plans.read import read_plan_detail
from service.plans.search import search_plans
from service.web.jsonio import json_response
from service.web.keys import ES, INDEX_NAMES, TODAY
from service.web.middleware import requires_scope
from service.web.problems import invalid_request
from service.web.validation import field_errors, read_model


@requires_scope("coverage:read")
async def plan_search(http_request: web.Request) -> web.Response:
    request = await read_model(http_request, PlanSearchRequest)
    app = http_request.app
    answer = await search_plans(app[ES], app[INDEX_NAMES], request, today=app[TODAY]())
    return json_response(answer)


@requires_scope("coverage:read")
async def get_plan(http_request: web.Request) -> web.Response:
    try:
        params = PlanReadParams.model_validate(
            {**http_request.query, "bidId": http_request.match_info["bidId"]}
        )
    except ValidationError as error:
        raise invalid_request(field_errors(error)) from None
    app = http_request.app
    answer = await read_plan_detail(app[ES], app[INDEX_NAMES], params, today=app[TODAY]())
    return json_response(answer)
