"""The response headers the OpenAPI document declares (the operations: each feature's routes)."""

from __future__ import annotations

from core.documents import Json
from service.web.contract import Operation
from service.web.middleware import SANDBOX_HEADER


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


def response_headers(status: int, spec: Operation, sandbox: bool, limited: bool) -> Json:
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
