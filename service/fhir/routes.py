"""The FHIR API under /fhir: metadata, read and search-type (GET, and POST ``_search``)."""

from __future__ import annotations

from datetime import UTC, datetime
from importlib.metadata import version
from typing import cast, get_args

import orjson
from aiohttp import web

from service.errors import ResourceNotFound
from service.fhir.base import base_url
from service.fhir.export.routes import EXPORT_ROUTES
from service.fhir.models import FHIR_JSON, FHIR_PREFIX, ResourceType
from service.fhir.read import read_answer
from service.fhir.render.bundle import operation_outcome
from service.fhir.render.capability import (
    TEXT_SEARCH_PARAMETER_ID,
    capability_statement,
    text_search_parameter,
)
from service.fhir.search.query_string import read_search, read_subset
from service.fhir.searching import search_bundle
from service.web.contract import Feature, Route
from service.web.keys import ES, INDEX_NAMES, TODAY
from service.web.middleware import allows_anonymous, requires_scope
from service.web.problems import ProblemError

_TYPES = frozenset(get_args(ResourceType))
_STARTED = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _answer(body: bytes, status: int = 200) -> web.Response:
    return web.Response(body=body, status=status, content_type=FHIR_JSON, charset="utf-8")


def _kind(request: web.Request) -> ResourceType:
    kind = request.match_info["type"]
    if kind not in _TYPES:
        raise ResourceNotFound(kind, "*")
    return cast(ResourceType, kind)


def _strict(request: web.Request) -> bool:
    prefer = request.headers.get("Prefer", "").replace(" ", "").lower()
    return "handling=strict" in prefer.split(",") or "handling=strict" in prefer.split(";")


async def _search(request: web.Request, pairs: list[tuple[str, str]]) -> web.Response:
    app = request.app
    search = read_search(_kind(request), pairs, strict=_strict(request))
    bundle = await search_bundle(app[ES], app[INDEX_NAMES], search, app[TODAY](), base_url(request))
    return _answer(bundle)


@allows_anonymous
@requires_scope("providers:read")
async def metadata(request: web.Request) -> web.Response:
    statement = capability_statement(base_url(request), version("provider-directory"), _STARTED)
    return _answer(orjson.dumps(statement))


@allows_anonymous
@requires_scope("providers:read")
async def search_parameter(request: web.Request) -> web.Response:
    if request.match_info["id"] != TEXT_SEARCH_PARAMETER_ID:
        raise ResourceNotFound("SearchParameter", request.match_info["id"])
    return _answer(orjson.dumps(text_search_parameter(base_url(request))))


@allows_anonymous
@requires_scope("providers:read")
async def search_type(request: web.Request) -> web.Response:
    return await _search(request, list(request.query.items()))


@allows_anonymous
@requires_scope("providers:read")
async def search_post(request: web.Request) -> web.Response:
    form = await request.post()
    pairs = [*request.query.items(), *((k, str(v)) for k, v in form.items())]
    return await _search(request, pairs)


@allows_anonymous
@requires_scope("providers:read")
async def read(request: web.Request) -> web.Response:
    app = request.app
    kind = _kind(request)
    subset = read_subset(request.query.items())
    resource_id = request.match_info["id"]
    return _answer(
        await read_answer(app[ES], app[INDEX_NAMES], kind, resource_id, app[TODAY](), subset)
    )


def _problem(error: ProblemError) -> web.Response:
    body = operation_outcome(error.status, error.code, error.detail)
    return web.Response(
        status=error.status,
        body=body,
        content_type=FHIR_JSON,
        charset="utf-8",
        headers=error.headers,
    )


# Described by the CapabilityStatement at /fhir/metadata, not by the OpenAPI document.
FEATURE = Feature(
    mount=FHIR_PREFIX,
    routes=(
        Route("fhir-metadata", "GET", "/metadata", metadata),
        Route("fhir-search-parameter", "GET", "/SearchParameter/{id}", search_parameter),
        *EXPORT_ROUTES,  # before the type routes, which would take ``$export`` for a type
        Route("fhir-search", "GET", "/{type}", search_type),
        Route("fhir-search-post", "POST", "/{type}/_search", search_post),
        Route("fhir-read", "GET", "/{type}/{id}", read),
    ),
    problem_renderer=_problem,
)
