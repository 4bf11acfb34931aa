"""The OpenAPI 3.1 document, generated from the route table and the pydantic models.

It depends on the settings (sandbox routes, /metrics, rate-limit headers), so each app builds the
document that describes exactly what it serves.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter
from pydantic.json_schema import JsonSchemaMode

from core.documents import Json, Location, Provider
from service.coverage.models import CompactCoverage, CoveragePlan, CoverageRequest
from service.search.models import SearchRequest, SearchResponse
from service.web.health import Health, Readiness
from service.web.middleware import REQUIRED_SCOPE_ATTRIBUTE, SANDBOX_ROUTE_PREFIX
from service.web.openapi_parts import (
    NON_API,
    OPERATIONS,
    STATUS_TEXT,
    header_components,
    response_headers,
    schema_ref,
)
from service.web.problems import PROBLEM_CONTENT_TYPE, Problem
from service.web.routes import Route, api_routes, service_routes
from service.web.settings import ALL_SCOPES, Settings

API_VERSION = "1.10.0"
# Requests validate (pydantic models); answers are TypedDicts the handlers are type-checked
# against. Both are read by pydantic here, so the document is generated from the one definition.
_REQUESTS: tuple[type[Any], ...] = (SearchRequest, CoverageRequest)
_RESPONSES: tuple[type[Any], ...] = (
    Provider,
    Location,
    SearchResponse,
    CoveragePlan,
    CompactCoverage,
    Problem,
    Health,
    Readiness,
)
DESCRIPTION = (
    "Search US healthcare providers by name, specialty and place; read a provider and its "
    "practice locations by NPI; check Medicare Advantage network participation. Errors are RFC "
    "9457 problem documents (application/problem+json) with a stable `code` and the request id; "
    "any method a path does not list is answered 405 with `Allow`. Optional request fields are "
    "left out, never sent as null."
)


def _schemas() -> Json:
    inputs: list[tuple[str, JsonSchemaMode, TypeAdapter[Any]]] = [
        (t.__name__, "validation", TypeAdapter(t)) for t in _REQUESTS
    ]
    inputs += [(t.__name__, "serialization", TypeAdapter(t)) for t in _RESPONSES]
    _, top = TypeAdapter.json_schemas(inputs, ref_template="#/components/schemas/{model}")
    schemas: Json = top["$defs"]
    schemas["SearchRequest"] |= SEARCH_RULES
    schemas["CoverageRequest"] |= COVERAGE_RULES
    return schemas


# The rules SearchRequest checks across fields, stated for clients and test generators. Inside
# allOf, so that client generators still give the body a typed model.
SEARCH_RULES: Json = {
    "allOf": [
        {
            "anyOf": [
                {"required": ["query"], "properties": {"query": {"pattern": "\\S"}}},
                {"required": ["location"]},
                {"required": ["cursor"]},
            ]
        },
        {
            "if": {"required": ["cursor"]},
            "then": {"propertyNames": {"enum": ["cursor", "pageSize"]}},
        },
        {
            "if": {"required": ["sort"], "properties": {"sort": {"const": "distance"}}},
            "then": {"required": ["location"]},
        },
        {
            "if": {"required": ["contractYear"]},
            "then": {"anyOf": [{"required": ["bidId"]}, {"required": ["payerPlanId"]}]},
        },
        {"not": {"required": ["bidId", "payerPlanId"]}},
    ],
    "dependentRequired": {
        "radius": ["location"],
        "bidId": ["contractYear"],
        "payerPlanId": ["contractYear"],
    },
}
# The plans a coverage request asks about: bid ids, a payer's own plan ids, or both.
COVERAGE_RULES: Json = {
    "allOf": [{"anyOf": [{"required": ["bidIds"]}, {"required": ["payerPlanIds"]}]}]
}


def _responses(route: Route, base_name: str, sandbox: bool, limited: bool) -> Json:
    spec = OPERATIONS.get(base_name) or NON_API[base_name]
    responses: Json = {}
    for status, (media_type, schema) in spec.success.items():
        entry: Json = {
            "description": STATUS_TEXT[status],
            "headers": response_headers(status, spec, sandbox, limited),
        }
        if media_type is not None:
            entry["content"] = {media_type: {"schema": schema}}
        responses[str(status)] = entry
    for status in spec.errors:
        responses[str(status)] = {
            "description": STATUS_TEXT[status],
            "headers": response_headers(status, spec, sandbox, limited),
            "content": {PROBLEM_CONTENT_TYPE: {"schema": schema_ref("Problem")}},
        }
    return responses


def _operation(route: Route, sandbox: bool, settings: Settings) -> Json:
    base_name = route.name.removeprefix(SANDBOX_ROUTE_PREFIX) if sandbox else route.name
    spec = OPERATIONS.get(base_name) or NON_API[base_name]
    scope = getattr(route.handler, REQUIRED_SCOPE_ATTRIBUTE, None)
    limited = scope is not None and settings.rate_limit_per_s > 0
    operation: Json = {
        "operationId": route.name,
        "summary": spec.summary,
        "description": spec.description + (" Sandbox copy of the /v2 route." if sandbox else ""),
        "tags": [("sandbox" if sandbox else spec.tag)],
        "parameters": spec.parameters(),
        "security": [{"bearerAuth": [scope]}] if scope else [],
        "responses": _responses(route, base_name, sandbox, limited),
    }
    if spec.request is not None:
        media: Json = {"schema": schema_ref(spec.request)}
        if spec.examples:
            media["examples"] = {name: {"value": v} for name, v in spec.examples.items()}
        operation["requestBody"] = {"required": True, "content": {"application/json": media}}
    return operation


def openapi_document(settings: Settings) -> Json:
    paths: Json = {}
    mounted = api_routes(settings) + [(route, False) for route in service_routes(settings)]
    for route, sandbox in mounted:
        path_item = paths.setdefault(route.path, {})
        path_item[route.method.lower()] = _operation(route, sandbox, settings)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Provider Directory & Coverage API",
            "version": API_VERSION,
            "description": DESCRIPTION,
        },
        "tags": [
            {"name": "providers", "description": "provider search and lookup"},
            {"name": "coverage", "description": "Medicare Advantage network participation"},
            {"name": "operations", "description": "probes, metrics and this description"},
            {"name": "sandbox", "description": "the API without /v2 (sandbox mode only)"},
        ],
        "paths": paths,
        "components": {
            "schemas": _schemas(),
            "headers": header_components(),
            "securitySchemes": {
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "JWT",
                    "description": "A JWT with exp, iat, iss and aud, and a `scope` claim "
                    f"(space-separated) holding the operation's scope: {', '.join(ALL_SCOPES)}.",
                }
            },
        },
    }
