"""The OpenAPI 3.1 document, generated from the route table and the pydantic models.

It depends on the settings (sandbox routes, /metrics, rate-limit headers), so each app builds the
document that describes exactly what it serves.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from pydantic import TypeAdapter
from pydantic.json_schema import JsonSchemaMode

from core.documents import Json
from service.statuses import STATUSES
from service.web.contract import Operation, Route, schema_ref
from service.web.health import Health, Readiness
from service.web.middleware import REQUIRED_SCOPE_ATTRIBUTE
from service.web.openapi_parts import header_components, response_headers
from service.web.problems import PROBLEM_CONTENT_TYPE, Problem
from service.web.routes import FEATURES, mounted_routes, service_routes
from service.web.settings import ALL_SCOPES, Settings

API_VERSION = "1.12.0"
# Requests validate (pydantic models, whose JSON Schema states their cross-field rules too);
# answers are TypedDicts the handlers are type-checked against. Both are read by pydantic here,
# so the document is generated from the one definition each feature hands the edge.
_EDGE_ANSWERS: tuple[type[Any], ...] = (Problem, Health, Readiness)
DESCRIPTION = (
    "Search US healthcare providers by name, specialty and place; read a provider and its "
    "practice locations by NPI; check Medicare Advantage network participation; find the plans "
    "offered where a person lives that keep their doctors in network. Errors are RFC "
    "9457 problem documents (application/problem+json) with a stable `code` and the request id; "
    "any method a path does not list is answered 405 with `Allow`. Optional request fields are "
    "left out, never sent as null."
)


@functools.cache
def _schemas() -> Json:
    """The models' JSON Schemas: no setting changes them, so they are made once a process (each
    document takes a copy)."""
    requests = [t for feature in FEATURES for t in feature.requests]
    answers = [*(t for feature in FEATURES for t in feature.answers), *_EDGE_ANSWERS]
    inputs: list[tuple[str, JsonSchemaMode, TypeAdapter[Any]]] = [
        (t.__name__, "validation", TypeAdapter(t)) for t in requests
    ]
    inputs += [(t.__name__, "serialization", TypeAdapter(t)) for t in answers]
    _, top = TypeAdapter.json_schemas(inputs, ref_template="#/components/schemas/{model}")
    schemas: Json = top["$defs"]
    return schemas


def _responses(spec: Operation, sandbox: bool, limited: bool) -> Json:
    responses: Json = {}
    for status, (media_type, schema) in spec.success.items():
        entry: Json = {
            "description": STATUSES[status].meaning,
            "headers": response_headers(status, spec, sandbox, limited),
        }
        if media_type is not None:
            entry["content"] = {media_type: {"schema": schema}}
        responses[str(status)] = entry
    for status in spec.errors:
        responses[str(status)] = {
            "description": STATUSES[status].meaning,
            "headers": response_headers(status, spec, sandbox, limited),
            "content": {PROBLEM_CONTENT_TYPE: {"schema": schema_ref("Problem")}},
        }
    return responses


def _operation(route: Route, spec: Operation, sandbox: bool, settings: Settings) -> Json:
    scope = getattr(route.handler, REQUIRED_SCOPE_ATTRIBUTE, None)
    limited = scope is not None and settings.rate_limit_per_s > 0
    operation: Json = {
        "operationId": route.name,
        "summary": spec.summary,
        "description": spec.description + (" Sandbox copy of the /v2 route." if sandbox else ""),
        "tags": [("sandbox" if sandbox else spec.tag)],
        "parameters": spec.parameters(),
        "security": [{"bearerAuth": [scope]}] if scope else [],
        "responses": _responses(spec, sandbox, limited),
    }
    if spec.request is not None:
        media: Json = {"schema": schema_ref(spec.request)}
        if spec.examples:
            media["examples"] = {name: {"value": v} for name, v in spec.examples.items()}
        operation["requestBody"] = {"required": True, "content": {"application/json": media}}
    return operation


def openapi_document(settings: Settings) -> Json:
    paths: Json = {}
    mounted = mounted_routes(settings) + [(route, False) for route in service_routes(settings)]
    for route, sandbox in mounted:
        if route.operation is not None:
            path_item = paths.setdefault(route.path, {})
            path_item[route.method.lower()] = _operation(route, route.operation, sandbox, settings)
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
            {"name": "plans", "description": "Medicare Advantage plans by area, with your doctors"},
            {"name": "directories", "description": "payers' directories and their scorecards"},
            {"name": "changes", "description": "what loads and updates changed, in commit order"},
            {"name": "operations", "description": "probes, metrics and this description"},
            {"name": "sandbox", "description": "the API without /v2 (sandbox mode only)"},
        ],
        "paths": paths,
        "components": {
            "schemas": copy.deepcopy(_schemas()),
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
