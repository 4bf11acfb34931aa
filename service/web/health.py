"""Liveness and readiness probes (no auth)."""

from __future__ import annotations

from typing import Literal, NotRequired

from aiohttp import web
from pydantic import with_config
from typing_extensions import TypedDict

from core.documents import CLOSED
from service.errors import BackendUnavailable
from service.storage import IndexHealth, aliases_exist, served_health
from service.web.jsonio import json_response
from service.web.keys import ES, INDEX_NAMES


@with_config(CLOSED)
class Health(TypedDict):
    status: Literal["ok"]


@with_config(CLOSED)
class Readiness(TypedDict):
    status: Literal["ready", "not_ready"]
    detail: str
    # The served indices' health: yellow (a replica missing) still answers everything.
    health: NotRequired[IndexHealth]


async def healthz(_request: web.Request) -> web.Response:
    health: Health = {"status": "ok"}
    return json_response(health)


_HEALTH_DETAIL: dict[IndexHealth, str] = {
    "green": "ok",
    "yellow": "ok: serving, some replicas are not assigned",
    "red": "a primary shard of a served index is unassigned",
}


async def readyz(request: web.Request) -> web.Response:
    """Ready when every alias exists and the served indices are green or yellow."""
    es, names = request.app[ES], request.app[INDEX_NAMES]
    readiness: Readiness
    try:
        if not await aliases_exist(es, names):
            readiness = {"status": "not_ready", "detail": "indices not loaded"}
        else:
            health = await served_health(es, names)
            ready = health != "red"
            readiness = {
                "status": "ready" if ready else "not_ready",
                "detail": _HEALTH_DETAIL[health],
                "health": health,
            }
    except BackendUnavailable:
        readiness = {"status": "not_ready", "detail": "elasticsearch unreachable"}
    return json_response(readiness, status=200 if readiness["status"] == "ready" else 503)
