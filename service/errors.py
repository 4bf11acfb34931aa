"""RFC 9457 problem+json responses and the middleware that turns every failure into one."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from aiohttp import web
from elasticsearch import ApiError, ConnectionError, ConnectionTimeout, TransportError

from service.keys import REQUEST_ID

PROBLEM_CONTENT_TYPE = "application/problem+json"
PROBLEM_BASE = "https://provider-directory.example/problems/"
log = logging.getLogger("service.errors")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class ProblemError(Exception):
    """Raised by handlers to answer with a problem document."""

    def __init__(
        self,
        status: int,
        code: str,
        title: str,
        detail: str,
        *,
        errors: list[dict[str, str]] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.errors = errors
        self.headers = headers or {}


def problem_response(request: web.Request, error: ProblemError) -> web.Response:
    body: dict[str, Any] = {
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


def elasticsearch_unavailable(detail: str = "the search backend is unavailable") -> ProblemError:
    return ProblemError(
        503,
        "backend_unavailable",
        "Service Unavailable",
        f"{detail}; retry shortly",
        headers={"Retry-After": "1"},
    )


_HTTP_CODES = {
    404: ("not_found", "Not Found", "no such resource"),
    405: ("method_not_allowed", "Method Not Allowed", "method not allowed for this resource"),
    413: ("body_too_large", "Payload Too Large", "request body is too large"),
    415: ("unsupported_media_type", "Unsupported Media Type", "send application/json"),
}


def _from_http_exception(error: web.HTTPException) -> ProblemError:
    code, title, detail = _HTTP_CODES.get(
        error.status, (f"http_{error.status}", error.reason, error.reason)
    )
    headers = {"Allow": error.headers["Allow"]} if "Allow" in error.headers else None
    return ProblemError(error.status, code, title, detail, headers=headers)


@web.middleware
async def problem_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except ProblemError as error:
        return problem_response(request, error)
    except web.HTTPException as error:
        if error.status < 400:
            raise
        return problem_response(request, _from_http_exception(error))
    except (ConnectionError, ConnectionTimeout):
        return problem_response(request, elasticsearch_unavailable())
    except (ApiError, TransportError) as error:
        status = getattr(error, "status_code", None) or getattr(error, "status", None)
        if status in (429, 502, 503, 504):
            return problem_response(request, elasticsearch_unavailable())
        _log_unexpected(request, "search backend error")
        return problem_response(request, _internal())
    except Exception:
        _log_unexpected(request, "unexpected error")
        return problem_response(request, _internal())


def _log_unexpected(request: web.Request, what: str) -> None:
    request_id = request.get(REQUEST_ID, "")
    log.exception(
        "%s on %s %s (request id %s)",
        what,
        request.method,
        request.path,
        request_id,
        extra={"request_id": request_id},
    )


def _internal() -> ProblemError:
    return ProblemError(
        500, "internal_error", "Internal Server Error", "an unexpected error occurred"
    )
