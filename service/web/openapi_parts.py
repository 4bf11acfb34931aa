"""What the OpenAPI document says about each route: summaries, parameters, statuses, headers."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import TypeAdapter

from core.documents import Json
from service.fields import NPI_RULE, BidId, ContractYear, Npi
from service.web.middleware import SANDBOX_HEADER

STATUS_TEXT = {
    200: "OK",
    304: "Not Modified: the representation still has the ETag sent in If-None-Match",
    400: "Bad Request: invalid input (validation errors list each field)",
    401: "Unauthorized: missing, malformed, expired or otherwise invalid bearer token",
    403: "Forbidden: the token lacks the operation's scope",
    404: "Not Found: no provider has this NPI, no plan this bid id, or no known place this name",
    413: "Content Too Large: the body exceeds the configured limit",
    415: "Unsupported Media Type: send application/json",
    429: "Too Many Requests: this token's subject exceeded its rate limit",
    500: "Internal Server Error (logged with the request id; never a stack trace)",
    503: "Service Unavailable: Elasticsearch is unreachable or the indices are not loaded",
}


def schema_ref(name: str) -> Json:
    return {"$ref": f"#/components/schemas/{name}"}


def parameter(name: str, where: str, description: str, schema: Json) -> Json:
    """An operation parameter; a path one is required, any other optional."""
    return {
        "name": name,
        "in": where,
        "required": where == "path",
        "description": description,
        "schema": schema,
    }


NPI_PARAMETER = parameter("npi", "path", NPI_RULE, TypeAdapter(Npi).json_schema())
BID_ID_PARAMETER = parameter(
    "bidId",
    "path",
    "contract letter + 4 digits, 3-digit plan, optional 3-digit segment",
    TypeAdapter(BidId).json_schema(),
)
CONTRACT_YEAR_PARAMETER = parameter(
    "contractYear",
    "query",
    "the plan year (default: the year of the service's day)",
    TypeAdapter(ContractYear).json_schema(),
)
_STRING = {"type": "string"}
REQUEST_ID_PARAMETER = parameter(
    "X-Request-ID",
    "header",
    "echoed back; 1-128 of A-Z a-z 0-9 . _ : - (anything else is replaced by a generated id)",
    _STRING,
)
IF_NONE_MATCH_PARAMETER = parameter(
    "If-None-Match",
    "header",
    "ETag(s) of a copy you hold, or *: answered 304 when still current",
    _STRING,
)


@dataclass(frozen=True)
class OperationSpec:
    summary: str
    description: str
    tag: str
    success: dict[int, tuple[str | None, Json]]
    errors: tuple[int, ...] = ()
    request: str | None = None
    path_parameters: tuple[Json, ...] = ()
    conditional: bool = False
    examples: dict[str, Json] = field(default_factory=dict)

    def parameters(self) -> list[Json]:
        conditional = [IF_NONE_MATCH_PARAMETER] if self.conditional else []
        return [*self.path_parameters, REQUEST_ID_PARAMETER, *conditional]


_POST_ERRORS = (400, 401, 403, 413, 415, 429, 500, 503)
_GET_ERRORS = (400, 401, 403, 404, 429, 500, 503)
_JSON = "application/json"
_MANHATTAN = {"lat": 40.7128, "lng": -74.006}
OPERATIONS: dict[str, OperationSpec] = {
    "search": OperationSpec(
        "Search providers",
        "Free text (names, organisations, specialties, lay terms) and/or a place; one result per "
        "provider with its locations inside the radius, nearest first.",
        "providers",
        {200: (_JSON, schema_ref("SearchResponse"))},
        (*_POST_ERRORS, 404),
        request="SearchRequest",
        examples={
            "name and place": {"query": "Dr. Johnson Mount Sinai", "location": _MANHATTAN},
            "specialty near a ZIP": {"query": "cardio", "location": "10013", "radius": 10},
            "filters": {"location": {"city": "Austin", "state": "TX"}, "gender": "F"},
        },
    ),
    "coverage": OperationSpec(
        "Check plan coverage",
        "Medicare Advantage network participation, grouped by bid id, then NPI. The default view"
        " is an array of plans with every provider whole under each; `view: compact` answers an"
        " object with each provider once.",
        "coverage",
        {
            200: (
                _JSON,
                {
                    "oneOf": [
                        {"type": "array", "items": schema_ref("CoveragePlan")},
                        schema_ref("CompactCoverage"),
                    ]
                },
            )
        },
        _POST_ERRORS,
        request="CoverageRequest",
        examples={
            "one plan, one provider": {
                "contractYear": 2026,
                "bidIds": ["H1234_001_000"],
                "npis": [{"npi": "1003000100"}],
            }
        },
    ),
    "planSearch": OperationSpec(
        "Plans for my doctors",
        "The plans of a contract year offered in a ZIP or county (Medicare Plan Finder files),"
        " each with its costs in US dollars, its contract's star rating for the year, and the"
        " network status of each asked NPI on the service's day by the coverage check's rule"
        " (one rule): a plan whose participation rows of the year do not name an NPI answers it"
        " `unknown` with reason `no_network_record` (the directory cannot say either way), not"
        " out of network. Default order: most asked NPIs in network, then overall stars, then"
        " premium. An unknown ZIP or county is a 404 (`area_not_found`); an area where no plan"
        " is offered answers totalCount 0 with `noResults`.",
        "plans",
        {200: (_JSON, schema_ref("PlanSearchResponse"))},
        (*_POST_ERRORS, 404),
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
    "plan": OperationSpec(
        "Get a plan",
        "A plan of a contract year (default: the year of the service's day) by bid id: its"
        " costs, star rating and service area.",
        "plans",
        {200: (_JSON, schema_ref("PlanDetail"))},
        _GET_ERRORS,
        path_parameters=(BID_ID_PARAMETER, CONTRACT_YEAR_PARAMETER),
    ),
    "provider": OperationSpec(
        "Get a provider",
        "The provider with this NPI.",
        "providers",
        {200: (_JSON, schema_ref("Provider")), 304: (None, {})},
        _GET_ERRORS,
        path_parameters=(NPI_PARAMETER,),
        conditional=True,
    ),
    "locations": OperationSpec(
        "Get a provider's locations",
        "Every known practice location of the provider, de-duplicated.",
        "providers",
        {200: (_JSON, {"type": "array", "items": schema_ref("Location")}), 304: (None, {})},
        _GET_ERRORS,
        path_parameters=(NPI_PARAMETER,),
        conditional=True,
    ),
}
NON_API: dict[str, OperationSpec] = {
    "healthz": OperationSpec(
        "Liveness",
        "The process answers.",
        "operations",
        {200: (_JSON, schema_ref("Health"))},
        (500,),
    ),
    "readyz": OperationSpec(
        "Readiness",
        "Elasticsearch answers and every alias exists (503 otherwise).",
        "operations",
        {200: (_JSON, schema_ref("Readiness")), 503: (_JSON, schema_ref("Readiness"))},
        (500,),
    ),
    "openapi": OperationSpec(
        "This API description", "OpenAPI 3.1.", "operations", {200: (_JSON, {"type": "object"})}
    ),
    "docs": OperationSpec(
        "Human-readable documentation",
        "A page that renders openapi.json.",
        "operations",
        {200: ("text/html", {"type": "string"})},
    ),
    "metrics": OperationSpec(
        "Prometheus metrics",
        "Request counts and latency by route and status; Elasticsearch call latency.",
        "operations",
        {200: ("text/plain", {"type": "string"})},
        (500,),
    ),
}


def header_components() -> Json:
    def string(description: str) -> Json:
        return {"description": description, "schema": {"type": "string"}}

    def integer(description: str) -> Json:
        return {"description": description, "schema": {"type": "integer", "minimum": 0}}

    return {
        "X-Request-ID": string("the request id, as sent or generated"),
        SANDBOX_HEADER: string("'true': answered by the sandbox"),
        "RateLimit-Limit": integer("requests allowed in a burst"),
        "RateLimit-Remaining": integer("requests left now"),
        "RateLimit-Reset": integer("seconds until the full burst is available again"),
        "Retry-After": integer("seconds to wait before retrying"),
        "WWW-Authenticate": string("the Bearer challenge"),
        "ETag": string("strong validator of the representation"),
        "Cache-Control": string("private, no-cache: revalidate with the ETag"),
    }


def response_headers(status: int, spec: OperationSpec, sandbox: bool, limited: bool) -> Json:
    """Headers of one response; ``required`` only where every such answer carries them."""
    names: dict[str, bool] = {"X-Request-ID": True}
    if sandbox:
        names[SANDBOX_HEADER] = True
    if limited and status not in (401, 403, 500):
        names |= dict.fromkeys(("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"), False)
        if status == 429:
            names |= dict.fromkeys(names.keys() - {"X-Request-ID", SANDBOX_HEADER}, True)
    if status in (429, 503) and status in spec.errors:
        names["Retry-After"] = True
    if status in (401, 403):
        names["WWW-Authenticate"] = True
    if spec.conditional and status in (200, 304):
        names |= {"ETag": True, "Cache-Control": True}
    headers = header_components()
    return {name: {**headers[name], "required": required} for name, required in names.items()}
