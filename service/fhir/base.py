"""The absolute root of /fhir that links and locations name (configured behind a proxy)."""

from __future__ import annotations

from aiohttp import web

from service.fhir.models import FHIR_PREFIX
from service.web.keys import SETTINGS


def base_url(request: web.Request) -> str:
    configured = request.app[SETTINGS].fhir_base_url
    if configured:
        return str(configured).rstrip("/")
    return f"{request.scheme}://{request.host}{FHIR_PREFIX}"
