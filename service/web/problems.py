"""RFC 9457 problem+json: the one place where every failure becomes an answer.

Edge code (auth, validation, rate limits) raises ``ProblemError`` directly; the service's own
errors (``service.errors``) and aiohttp's HTTP exceptions are mapped here, once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import NotRequired

import orjson
from aiohttp import web
from pydantic import with_config
from typing_extensions import TypedDict

from core.documents import CLOSED
from service.errors import (
    BackendUnavailable,
    ChangesGone,
    DirectoryError,
    InvalidInput,
    NotFoundInput,
    ProviderNotFound,
    TooManyWatches,
)
from service.statuses import STATUSES
from service.web.keys import REQUEST_ID
from service.web.types import Handler

PROBLEM_CONTENT_TYPE = "application/problem+json"
PROBLEM_BASE = "https://provider-directory.example/problems/"
RETRY_AFTER_S = 1
log = logging.getLogger(__name__)


@with_config(CLOSED)
class FieldError(TypedDict):
    field: str
    message: str
    suggestions: NotRequired[list[str]]  # closest acceptable values, e.g. known places


@with_config(CLOSED)
class Problem(TypedDict):
    """RFC 9457 problem details."""

    type: str
    title: str
    status: int
    detail: str
    code: str  # stable, machine-readable error code
    instance: str  # the request path
    requestId: str  # the X-Request-ID of this request
    errors: NotRequired[list[FieldError]]  # for validation errors: one entry per field


class ProblemError(Exception):
    """Raised by edge code to answer with a problem document."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        errors: list[FieldError] | None = None,
        headers: dict[str, str] | None = None,
        title: str | None = None,  # the status's own (service.statuses) unless given
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.title = title or STATUSES[status].title
        self.detail = detail
        self.errors = errors
        self.headers = headers or {}


def invalid_request(errors: list[FieldError]) -> ProblemError:
    summary = "; ".join(f"{e['field']}: {e['message']}" for e in errors[:5])
    return ProblemError(400, "validation_error", summary, errors=errors)


ProblemRenderer = Callable[[ProblemError], web.Response]
# A feature that answers errors in a format of its own (the FHIR API's OperationOutcome) registers
# its path prefix here; the edge never imports the feature.
PROBLEM_RENDERERS = web.AppKey[dict[str, ProblemRenderer]]("problem_renderers")


def register_problem_renderer(app: web.Application, prefix: str, render: ProblemRenderer) -> None:
    if PROBLEM_RENDERERS not in app:
        app[PROBLEM_RENDERERS] = {}
    app[PROBLEM_RENDERERS][prefix] = render


def problem_response(request: web.Request, error: ProblemError) -> web.Response:
    for prefix, render in request.app.get(PROBLEM_RENDERERS, {}).items():
        if request.path == prefix or request.path.startswith(prefix + "/"):
            return render(error)
    body: Problem = {
        "type": PROBLEM_BASE + error.code,
        "title": error.title,
        "status": error.status,
        "detail": error.detail,
        "code": error.code,
        "instance": request.path,
        "requestId": request.get(REQUEST_ID, ""),
    }
    if error.errors is not None:
        body["errors"] = error.errors
    return web.Response(
        status=error.status,
        body=orjson.dumps(body),
        content_type=PROBLEM_CONTENT_TYPE,
        headers=error.headers,
    )


def from_directory_error(error: DirectoryError) -> ProblemError:
    """The answer to each of the service's own errors."""
    if isinstance(error, BackendUnavailable):
        return ProblemError(
            503,
            "backend_unavailable",
            f"{error}; retry shortly",
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )
    if isinstance(error, ProviderNotFound):
        return ProblemError(404, "provider_not_found", str(error))
    if isinstance(error, TooManyWatches):
        return ProblemError(409, "too_many_watches", str(error))
    if isinstance(error, InvalidInput):
        entry: FieldError = {"field": error.field, "message": str(error)}
        if error.suggestions:
            entry["suggestions"] = list(error.suggestions)
        status = (
            410
            if isinstance(error, ChangesGone)
            else 404
            if isinstance(error, NotFoundInput)
            else 400
        )
        return ProblemError(status, error.code, str(error), errors=[entry])
    return internal_error()


# What the router and the body reader mean when they refuse a request.
_HTTP_DETAILS = {
    400: "the request could not be read",
    404: "no such resource",
    405: "method not allowed for this resource",
    413: "request body is too large",
    415: "send application/json",
}


def _from_http_exception(error: web.HTTPException) -> ProblemError:
    known = STATUSES.get(error.status)
    headers = {"Allow": error.headers["Allow"]} if "Allow" in error.headers else None
    return ProblemError(
        error.status,
        known.code if known else f"http_{error.status}",
        _HTTP_DETAILS.get(error.status, error.reason),
        headers=headers,
        title=None if known else error.reason,
    )


def internal_error() -> ProblemError:
    return ProblemError(500, "internal_error", "an unexpected error occurred")


@web.middleware
async def problem_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except ProblemError as error:
        return problem_response(request, error)
    except DirectoryError as error:
        return problem_response(request, from_directory_error(error))
    except web.HTTPException as error:
        if error.status < 400:
            raise
        return problem_response(request, _from_http_exception(error))
    except Exception:
        _log_unexpected(request)
        return problem_response(request, internal_error())


def _log_unexpected(request: web.Request) -> None:
    request_id = request.get(REQUEST_ID, "")
    log.exception(
        "unexpected error on %s %s (request id %s)",
        request.method,
        request.path,
        request_id,
        extra={"request_id": request_id},
    )
