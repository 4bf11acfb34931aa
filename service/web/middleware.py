"""Request id, bearer-token, rate-limit and sandbox-marker middlewares."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

from aiohttp import web

from service.errors import DirectoryError
from service.web.auth import InvalidToken
from service.web.keys import LIMITER, REQUEST_ID, SCOPES, SETTINGS, SUBJECT, VERIFIER
from service.web.problems import ProblemError, from_directory_error
from service.web.types import Handler

_SAFE_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
REQUIRED_SCOPE_ATTRIBUTE = "required_scope"
ANONYMOUS_ATTRIBUTE = "anonymous_allowed"
ANONYMOUS_SUBJECT = "anonymous:"
SANDBOX_ROUTE_PREFIX = "sandbox-"
SANDBOX_HEADER = "X-Sandbox"


def requires_scope(scope: str) -> Callable[[Handler], Handler]:
    """Mark a handler as needing a bearer token with ``scope``."""

    def mark(handler: Handler) -> Handler:
        setattr(handler, REQUIRED_SCOPE_ATTRIBUTE, scope)
        return handler

    return mark


def allows_anonymous(handler: Handler) -> Handler:
    """Mark a handler as readable without a token when the operator allows it
    (``fhir_anonymous``); a token, when given, is still verified."""
    setattr(handler, ANONYMOUS_ATTRIBUTE, True)
    return handler


@web.middleware
async def request_id_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    given = request.headers.get("X-Request-ID", "")
    request_id = given if _SAFE_REQUEST_ID.match(given) else uuid.uuid4().hex
    request[REQUEST_ID] = request_id
    try:
        response = await handler(request)
    except web.HTTPException as error:
        error.headers["X-Request-ID"] = request_id
        raise
    response.headers["X-Request-ID"] = request_id
    return response


def _unauthorized(detail: str, error: str = "invalid_token") -> ProblemError:
    challenge = f'Bearer realm="provider-directory", error="{error}"'
    return ProblemError(401, "unauthorized", detail, headers={"WWW-Authenticate": challenge})


@web.middleware
async def auth_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    scope = getattr(request.match_info.handler, REQUIRED_SCOPE_ATTRIBUTE, None)
    if scope is None:
        return await handler(request)
    given = request.headers.get("Authorization", "")
    anonymous = getattr(request.match_info.handler, ANONYMOUS_ATTRIBUTE, False)
    if not given and anonymous and request.app[SETTINGS].fhir_anonymous:
        # Rate-limited per client address, as a token is per subject.
        request[SUBJECT] = ANONYMOUS_SUBJECT + (request.remote or "")
        request[SCOPES] = frozenset({scope})
        return await handler(request)
    scheme, _, token = given.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _unauthorized("a bearer token is required", error="invalid_request")
    try:
        claims = request.app[VERIFIER].verify(token.strip())
    except InvalidToken as error:
        raise _unauthorized(str(error)) from None
    if scope not in claims.scopes:
        raise ProblemError(
            403,
            "insufficient_scope",
            f"this endpoint needs the scope {scope!r}",
            headers={"WWW-Authenticate": f'Bearer error="insufficient_scope", scope="{scope}"'},
        )
    request[SUBJECT] = claims.subject
    request[SCOPES] = claims.scopes
    return await handler(request)


@web.middleware
async def rate_limit_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Runs after auth: limits authenticated requests per token subject (service.web.ratelimit)."""
    limiter = request.app.get(LIMITER)
    if limiter is None or SUBJECT not in request:
        return await handler(request)
    decision = limiter.take(request[SUBJECT] or "(no subject)")
    headers = decision.headers()
    if not decision.allowed:
        raise ProblemError(
            429,
            "rate_limited",
            f"too many requests; retry in {decision.retry_after_s} s",
            headers=headers | {"Retry-After": str(decision.retry_after_s)},
        )
    try:
        response = await handler(request)
    except DirectoryError as error:
        problem = from_directory_error(error)
        problem.headers.update(headers)
        raise problem from error
    except (ProblemError, web.HTTPException) as error:
        error.headers.update(headers)
        raise
    response.headers.update(headers)
    return response


@web.middleware
async def sandbox_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Marks every answer of a sandbox route (the API without ``/v2``), errors included."""
    response = await handler(request)
    name = request.match_info.route.name or ""
    if name.startswith(SANDBOX_ROUTE_PREFIX):
        response.headers[SANDBOX_HEADER] = "true"
    return response
