"""JSON in and out with orjson; conditional GETs with strong ETags."""

from __future__ import annotations

import re
from typing import Any

import orjson
from aiohttp import web

_ENTITY_TAG = re.compile(r'(?:W/)?("[^"]*")')
# Authenticated answers: a shared cache must not keep them; a client revalidates with the ETag.
CACHE_CONTROL = "private, no-cache"


def json_response(data: Any, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(data), status=status, content_type="application/json")


def none_match(header: str, tag: str) -> bool:
    """If-None-Match uses the weak comparison (RFC 9110 13.1.2): ``W/`` is ignored."""
    if header.strip() == "*":
        return True
    return tag in _ENTITY_TAG.findall(header)


def conditional_response(request: web.Request, body: bytes, tag: str) -> web.Response:
    """200 with the JSON ``body`` and its ``ETag``, or 304 without a body when
    ``If-None-Match`` names that tag."""
    headers = {"ETag": tag, "Cache-Control": CACHE_CONTROL}
    condition = request.headers.get("If-None-Match")
    if condition is not None and none_match(condition, tag):
        return web.Response(status=304, headers=headers)
    headers["Content-Type"] = "application/json"
    return web.Response(body=body, headers=headers)
