"""Liveness and readiness probes (no auth)."""

from __future__ import annotations

from typing import Literal

from aiohttp import web
from pydantic import with_config
from typing_extensions import TypedDict

from core.documents import CLOSED
from service.errors import BackendUnavailable
from service.storage import aliases_exist
from service.web.jsonio import json_response
from service.web.keys import ES, INDEX_NAMES


@with_config(CLOSED)
class Health(TypedDict):
    status: Literal["ok"]


@with_config(CLOSED)
class Readiness(TypedDict):
    status: Literal["ready", "not_ready"]
    detail: str


async def healthz(_request: web.Request) -> web.Response:
    health: Health = {"status": "ok"}
    return json_response(health)


async def readyz(request: web.Request) -> web.Response:
    try:
        ready = await aliases_exist(request.app[ES], request.app[INDEX_NAMES])
        detail = "ok" if ready else "indices not loaded"
    except BackendUnavailable:
        ready, detail = False, "elasticsearch unreachable"
    readiness: Readiness = {"status": "ready" if ready else "not_ready", "detail": detail}
    return json_response(readiness, status=200 if ready else 503)
