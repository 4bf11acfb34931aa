"""GET /v2/providers/{npi} and GET /v2/providers/{npi}/locations (DESIGN 5.2, 5.3)."""

from __future__ import annotations

from aiohttp import web

from core.npi import is_valid_npi
from service.errors import InvalidInput
from service.fields import NPI_RULE
from service.providers import store
from service.web.jsonio import conditional_json_response
from service.web.keys import ES, INDEX_NAMES
from service.web.middleware import requires_scope


def _npi(request: web.Request) -> str:
    npi = request.match_info["npi"]
    if not is_valid_npi(npi):
        raise InvalidInput("npi", f"not a valid NPI: an NPI is {NPI_RULE}", code="invalid_npi")
    return npi


@requires_scope("providers:read")
async def get_provider(request: web.Request) -> web.Response:
    provider = await store.get_provider(request.app[ES], request.app[INDEX_NAMES], _npi(request))
    return conditional_json_response(request, provider)


@requires_scope("providers:read")
async def get_locations(request: web.Request) -> web.Response:
    locations = await store.get_locations(request.app[ES], request.app[INDEX_NAMES], _npi(request))
    return conditional_json_response(request, locations)
