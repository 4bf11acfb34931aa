"""What a feature hands the web edge: its routes, each with the OpenAPI operation it serves, the
types its requests and answers are read from, what it loads before the first request, and, for a
feature that answers errors in a format of its own, its error renderer.

The edge registers what features hand it (service.web.routes) and imports nothing else of theirs.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

from core.documents import Json
from service.web.problems import ProblemRenderer
from service.web.types import Handler


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


REQUEST_ID_PARAMETER = parameter(
    "X-Request-ID",
    "header",
    "echoed back; 1-128 of A-Z a-z 0-9 . _ : - (anything else is replaced by a generated id)",
    {"type": "string"},
)
IF_NONE_MATCH_PARAMETER = parameter(
    "If-None-Match",
    "header",
    "ETag(s) of a copy you hold, or *: answered 304 when still current",
    {"type": "string"},
)
JSON = "application/json"
POST_ERRORS = (400, 401, 403, 413, 415, 429, 500, 503)
GET_ERRORS = (400, 401, 403, 404, 429, 500, 503)


@dataclass(frozen=True)
class Operation:
    """What the OpenAPI document says of one route."""

    summary: str
    description: str
    tag: str
    success: dict[int, tuple[str | None, Json]]
    errors: tuple[int, ...] = ()
    request: str | None = None  # the request body's schema name
    path_parameters: tuple[Json, ...] = ()
    conditional: bool = False  # answers 304 to If-None-Match
    examples: dict[str, Json] = field(default_factory=dict)

    def parameters(self) -> list[Json]:
        conditional = [IF_NONE_MATCH_PARAMETER] if self.conditional else []
        return [*self.path_parameters, REQUEST_ID_PARAMETER, *conditional]


@dataclass(frozen=True)
class Route:
    name: str
    method: Literal["GET", "POST", "DELETE"]
    path: str  # under the feature's mount point
    handler: Handler
    # None: described elsewhere (the FHIR API's routes: its CapabilityStatement).
    operation: Operation | None = None


Startup = Callable[[web.Application], Awaitable[None]]
# Work that runs beside the requests for the application's life (aiohttp's cleanup context).
Background = Callable[[web.Application], AsyncIterator[None]]


@dataclass(frozen=True)
class Feature:
    routes: tuple[Route, ...]
    # Mounted under /v2 (and at the root in sandbox mode) unless it has a mount point of its own.
    mount: str | None = None
    # What the OpenAPI document defines: request models (validated) and answer types (serialised).
    requests: tuple[type[Any], ...] = ()
    answers: tuple[type[Any], ...] = ()
    startup: tuple[Startup, ...] = ()
    background: tuple[Background, ...] = ()
    problem_renderer: ProblemRenderer | None = None
