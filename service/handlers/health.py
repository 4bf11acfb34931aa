"""Liveness and readiness probes (no auth)."""

from __future__ import annotations

from aiohttp import web
from elasticsearch import ApiError, TransportError

from service.jsonio import json_response
from service.keys import ES, INDEX_NAMES
from service.repository import ProviderRepository


async def healthz(_request: web.Request) -> web.Response:
    return json_response({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    repository = ProviderRepository(request.app[ES], request.app[INDEX_NAMES])
    try:
        ready = await repository.ready()
        reason = "ok" if ready else "indices not loaded"
    except (ApiError, TransportError):
        ready, reason = False, "elasticsearch unreachable"
    return json_response(
        {"status": "ready" if ready else "not_ready", "detail": reason},
        status=200 if ready else 503,
    )
