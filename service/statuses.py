"""Every HTTP status the service answers with, once: its title, what it means here (the OpenAPI
document's description), the problem code when aiohttp raised it, and the FHIR issue type the
FHIR API's OperationOutcome gives it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Status:
    title: str
    meaning: str
    code: str  # the problem's ``code`` when the router or the body reader answered it
    fhir_issue: str  # OperationOutcome.issue.code


STATUSES: dict[int, Status] = {
    200: Status("OK", "OK", "ok", "informational"),
    201: Status("Created", "Created: the Location header names it", "created", "informational"),
    202: Status(
        "Accepted",
        "Accepted: the work goes on; poll the Content-Location",
        "accepted",
        "informational",
    ),
    204: Status("No Content", "No Content: done", "no_content", "informational"),
    304: Status(
        "Not Modified",
        "Not Modified: the representation still has the ETag sent in If-None-Match",
        "not_modified",
        "informational",
    ),
    400: Status(
        "Bad Request",
        "Bad Request: invalid input (validation errors list each field)",
        "bad_request",
        "invalid",
    ),
    401: Status(
        "Unauthorized",
        "Unauthorized: missing, malformed, expired or otherwise invalid bearer token",
        "unauthorized",
        "login",
    ),
    403: Status(
        "Forbidden", "Forbidden: the token lacks the operation's scope", "forbidden", "forbidden"
    ),
    404: Status(
        "Not Found",
        "Not Found: no provider has this NPI, no plan this bid id, no known place this name, or"
        " no loaded payer directory this name, no watch of yours this id",
        "not_found",
        "not-found",
    ),
    405: Status(
        "Method Not Allowed",
        "Method Not Allowed: the Allow header lists the methods the path takes",
        "method_not_allowed",
        "not-supported",
    ),
    406: Status("Not Acceptable", "Not Acceptable", "not_acceptable", "not-supported"),
    409: Status(
        "Conflict",
        "Conflict: the request is at odds with what exists (a limit reached)",
        "conflict",
        "conflict",
    ),
    410: Status("Gone", "Gone", "gone", "deleted"),
    413: Status(
        "Payload Too Large",
        "Content Too Large: the body exceeds the configured limit",
        "body_too_large",
        "too-costly",
    ),
    415: Status(
        "Unsupported Media Type",
        "Unsupported Media Type: send application/json",
        "unsupported_media_type",
        "not-supported",
    ),
    429: Status(
        "Too Many Requests",
        "Too Many Requests: this token's subject exceeded its rate limit",
        "rate_limited",
        "throttled",
    ),
    500: Status(
        "Internal Server Error",
        "Internal Server Error (logged with the request id; never a stack trace)",
        "internal_error",
        "exception",
    ),
    503: Status(
        "Service Unavailable",
        "Service Unavailable: Elasticsearch is unreachable or the indices are not loaded",
        "backend_unavailable",
        "transient",
    ),
}


def fhir_issue(status: int) -> str:
    found = STATUSES.get(status)
    return found.fhir_issue if found else "exception"
