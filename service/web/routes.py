"""The URL map: every route of the service in one place.

The API routes are one table mounted under ``/v2`` and, in sandbox mode, also at the root (the
original description's "mock server"); the OpenAPI document is generated from the same table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from aiohttp import web

from service.coverage.routes import coverage
from service.fhir.routes import setup_fhir_routes
from service.plans.routes import get_plan, plan_search
from service.providers.routes import get_locations, get_provider
from service.search.routes import search
from service.web import docs, health
from service.web.metrics import metrics_handler
from service.web.middleware import SANDBOX_ROUTE_PREFIX
from service.web.settings import Settings
from service.web.types import Handler

API_PREFIX = "/v2"
DOCS_PATH = f"{API_PREFIX}/docs"
SANDBOX_PREFIX = ""
# Any segment is an NPI to validate (400 when malformed) except the sibling POST routes' names, so
# GET /v2/providers/search is a 405 with "Allow: POST", not an invalid NPI.
NPI_SEGMENT = r"{npi:(?!search$|coverage$)[^/]+}"
BID_ID_SEGMENT = r"{bidId:(?!search$)[^/]+}"  # the same for GET /v2/plans/search


@dataclass(frozen=True)
class Route:
    name: str
    method: Literal["GET", "POST"]
    path: str
    handler: Handler


API_ROUTES = (
    Route("search", "POST", "/providers/search", search),
    Route("coverage", "POST", "/providers/coverage", coverage),
    Route("provider", "GET", "/providers/{npi}", get_provider),
    Route("locations", "GET", "/providers/{npi}/locations", get_locations),
    Route("planSearch", "POST", "/plans/search", plan_search),
    Route("plan", "GET", "/plans/{bidId}", get_plan),
)


def service_routes(settings: Settings) -> list[Route]:
    """Probes, metrics and the API description: no auth."""
    routes = [
        Route("healthz", "GET", "/healthz", health.healthz),
        Route("readyz", "GET", "/readyz", health.readyz),
        Route("openapi", "GET", f"{API_PREFIX}/openapi.json", docs.serve_openapi),
        Route("docs", "GET", DOCS_PATH, docs.docs_page),
    ]
    if settings.metrics_enabled:
        routes.append(Route("metrics", "GET", "/metrics", metrics_handler))
    return routes


def api_routes(settings: Settings) -> list[tuple[Route, bool]]:
    """Every API route as mounted, with whether it is the sandbox copy."""
    mounted = [(Route(r.name, r.method, API_PREFIX + r.path, r.handler), False) for r in API_ROUTES]
    if settings.sandbox:
        mounted += [
            (
                Route(SANDBOX_ROUTE_PREFIX + r.name, r.method, SANDBOX_PREFIX + r.path, r.handler),
                True,
            )
            for r in API_ROUTES
        ]
    return mounted


def setup_routes(app: web.Application, settings: Settings) -> None:
    routes = service_routes(settings) + [route for route, _ in api_routes(settings)]
    app.router.add_static(DOCS_PATH + docs.ASSETS_PATH, docs.ASSETS, name="docs-assets")
    for route in routes:
        path = route.path.replace("{npi}", NPI_SEGMENT).replace("{bidId}", BID_ID_SEGMENT)
        if route.method == "GET":
            app.router.add_get(path, route.handler, name=route.name)
        else:
            app.router.add_route(route.method, path, route.handler, name=route.name)
    setup_fhir_routes(app)
