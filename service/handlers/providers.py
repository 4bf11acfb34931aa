"""GET /v2/providers/{npi} and GET /v2/providers/{npi}/locations (DESIGN 5.2, 5.3)."""

from __future__ import annotations

from aiohttp import web

from core.npi import is_valid_npi
from service.errors import ProblemError
from service.jsonio import conditional_json_response
from service.keys import ES, INDEX_NAMES
from service.middleware import requires_scope
from service.repository import ProviderRepository


def _npi(request: web.Request) -> str:
    npi = request.match_info["npi"]
    if not is_valid_npi(npi):
        raise ProblemError(
            400,
            "invalid_npi",
            "Bad Request",
            "an NPI is 10 digits with a valid check digit (Luhn over 80840 + NPI)",
            errors=[{"field": "npi", "message": "not a valid NPI"}],
        )
    return npi


def _repository(request: web.Request) -> ProviderRepository:
    return ProviderRepository(request.app[ES], request.app[INDEX_NAMES])


def _not_found(npi: str) -> ProblemError:
    return ProblemError(
        404, "provider_not_found", "Not Found", f"no active provider with NPI {npi}"
    )


@requires_scope("providers:read")
async def get_provider(request: web.Request) -> web.Response:
    npi = _npi(request)
    provider = await _repository(request).provider(npi)
    if provider is None:
        raise _not_found(npi)
    return conditional_json_response(request, provider)


@requires_scope("providers:read")
async def get_locations(request: web.Request) -> web.Response:
    npi = _npi(request)
    locations = await _repository(request).locations(npi)
    if locations is None:
        raise _not_found(npi)
    return conditional_json_response(request, locations)
