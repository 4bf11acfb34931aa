"""GET /v2/providers/{npi} and GET /v2/providers/{npi}/locations (DESIGN 5.2, 5.3)."""

from __future__ import annotations

from aiohttp import web
from pydantic import TypeAdapter

from core.documents import Location, Provider
from core.npi import is_npi_shaped
from service.errors import InvalidInput
from service.fields import NPI_RULE, Npi
from service.providers.lookup import lookup
from service.providers.models import Part
from service.web.contract import GET_ERRORS, JSON, Feature, Operation, Route, parameter, schema_ref
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


_NPI = parameter("npi", "path", NPI_RULE, TypeAdapter(Npi).json_schema())
FEATURE = Feature(
    routes=(
        Route(
            "provider",
            "GET",
            "/providers/{npi}",
            get_provider,
            Operation(
                "Get a provider",
                "The provider with this NPI.",
                "providers",
                {200: (JSON, schema_ref("Provider")), 304: (None, {})},
                GET_ERRORS,
                path_parameters=(_NPI,),
                conditional=True,
            ),
        ),
        Route(
            "locations",
            "GET",
            "/providers/{npi}/locations",
            get_locations,
            Operation(
                "Get a provider's locations",
                "Every known practice location of the provider, de-duplicated.",
                "providers",
                {200: (JSON, {"type": "array", "items": schema_ref("Location")}), 304: (None, {})},
                GET_ERRORS,
                path_parameters=(_NPI,),
                conditional=True,
            ),
        ),
    ),
    answers=(Provider, Location),
)
