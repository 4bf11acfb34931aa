"""POST /v2/plans/search and GET /v2/plans/{bidId} (DESIGN 5.7)."""

from __future__ import annotations

from aiohttp import web
from pydantic import TypeAdapter, ValidationError

from service.fields import BidId, ContractYear
from service.plans.models import PlanDetail, PlanReadParams, PlanSearchRequest, PlanSearchResponse
from service.plans.read import read_plan_detail
from service.plans.search import search_plans
from service.web.contract import (
    GET_ERRORS,
    JSON,
    POST_ERRORS,
    Feature,
    Operation,
    Route,
    parameter,
    schema_ref,
)
from service.web.jsonio import json_response
from service.web.keys import ES, INDEX_NAMES, TODAY
from service.web.middleware import requires_scope
from service.web.problems import invalid_request
from service.web.validation import answer_body, field_errors


@requires_scope("coverage:read")
async def plan_search(http_request: web.Request) -> web.Response:
    return await answer_body(http_request, PlanSearchRequest, search_plans)


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


_BID_ID = parameter(
    "bidId",
    "path",
    "contract letter + 4 digits, 3-digit plan, optional 3-digit segment",
    TypeAdapter(BidId).json_schema(),
)
_CONTRACT_YEAR = parameter(
    "contractYear",
    "query",
    "the plan year (default: the year of the service's day)",
    TypeAdapter(ContractYear).json_schema(),
)
FEATURE = Feature(
    routes=(
        Route(
            "planSearch",
            "POST",
            "/plans/search",
            plan_search,
            Operation(
                "Plans for my doctors",
                "The plans of a contract year offered in a ZIP or county (Medicare Plan Finder"
                " files), each with its costs in US dollars, its contract's star rating for the"
                " year, and the network status of each asked NPI on the service's day by the"
                " coverage check's rule (one rule): a plan whose participation rows of the year do"
                " not name an NPI answers it `unknown` with reason `no_network_record` (the"
                " directory cannot say either way), not out of network. Default order: most asked"
                " NPIs in network, then overall stars, then premium. An unknown ZIP or county is a"
                " 404 (`area_not_found`); an area where no plan is offered answers totalCount 0"
                " with `noResults`.",
                "plans",
                {200: (JSON, schema_ref("PlanSearchResponse"))},
                (*POST_ERRORS, 404),
                request="PlanSearchRequest",
                examples={
                    "a ZIP and two doctors": {
                        "zip": "03031",
                        "npis": [{"npi": "1003000100"}, {"npi": "1003000126"}],
                    },
                    "a county, cheapest first": {
                        "countyFips": "45079",
                        "sort": "premium",
                        "maxMonthlyPremium": 50,
                    },
                },
            ),
        ),
        Route(
            "plan",
            "GET",
            "/plans/{bidId}",
            get_plan,
            Operation(
                "Get a plan",
                "A plan of a contract year (default: the year of the service's day) by bid id:"
                " its costs, star rating and service area.",
                "plans",
                {200: (JSON, schema_ref("PlanDetail"))},
                GET_ERRORS,
                path_parameters=(_BID_ID, _CONTRACT_YEAR),
            ),
        ),
    ),
    requests=(PlanSearchRequest,),
    answers=(PlanSearchResponse, PlanDetail),
)
