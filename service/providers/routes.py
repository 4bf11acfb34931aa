"""GET /v2/providers/{npi} and GET /v2/providers/{npi}/locations (DESIGN 5.2, 5.3)."""

from __future__ import annotations

from aiohttp import web

from core.npi import is_npi_shaped
from service.errors import InvalidInput
from service.fields import NPI_RULE
from service.providers.lookup import lookup
from service.providers.models import Part
from service.web.jsonio import conditional_response
from service.web.keys import ES, INDEX_NAMES
from service.web.middleware import requires_scope


def _npi(request: web.Request) -> str:
    npi = request.match_info["npi"]
    if not is_npi_shaped(npi):
        raise InvalidInput("npi", f"not an NPI: an NPI is {NPI_RULE}", code="invalid_npi")
    return npi


async def _answer(request: web.Request, part: Part) -> web.Response:
    app = request.app
    body, tag = await lookup(app[ES], app[INDEX_NAMES], _npi(request), part)
    return conditional_response(request, body, tag)


@requires_scope("providers:read")
async def get_provider(request: web.Request) -> web.Response:
    return await _answer(request, "provider")


@requires_scope("providers:read")
async def get_locations(request: web.Request) -> web.Response:
    return await _answer(request, "locations")
