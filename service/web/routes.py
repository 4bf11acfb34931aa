"""The URL map: the features' routes as they hand them (service.web.contract), and the service's
own (probes, metrics, the API description).

A feature without a mount point of its own is mounted under ``/v2`` and, in sandbox mode, also
at the root (the original description's "mock server"); the OpenAPI document is generated from
the same routes.
"""

from __future__ import annotations

from aiohttp import web

from service.changes.routes import FEATURE as CHANGES
from service.coverage.routes import FEATURE as COVERAGE
from service.directories.routes import FEATURE as DIRECTORIES
from service.fhir.routes import FEATURE as FHIR
from service.plans.routes import FEATURE as PLANS
from service.providers.routes import FEATURE as PROVIDERS
from service.search.routes import FEATURE as SEARCH
from service.watches.routes import FEATURE as WATCHES
from service.web import docs, health
from service.web.contract import JSON, Feature, Operation, Route, schema_ref
from service.web.metrics import metrics_handler
from service.web.middleware import SANDBOX_ROUTE_PREFIX
from service.web.problems import register_problem_renderer
from service.web.settings import Settings

FEATURES: tuple[Feature, ...] = (
    SEARCH, COVERAGE, PROVIDERS, PLANS, DIRECTORIES, CHANGES, WATCHES, FHIR,
)  # fmt: skip
API_PREFIX = "/v2"
DOCS_PATH = f"{API_PREFIX}/docs"
SANDBOX_PREFIX = ""
# Any segment is an NPI to validate (400 when malformed) except the sibling POST routes' names, so
# GET /v2/providers/search is a 405 with "Allow: POST", not an invalid NPI.
NPI_SEGMENT = r"{npi:(?!search$|coverage$)[^/]+}"
BID_ID_SEGMENT = r"{bidId:(?!search$)[^/]+}"  # the same for GET /v2/plans/search


def service_routes(settings: Settings) -> list[Route]:
    """Probes, metrics and the API description: no auth."""
    routes = [
        Route(
            "healthz",
            "GET",
            "/healthz",
            health.healthz,
            Operation(
                "Liveness",
                "The process answers.",
                "operations",
                {200: (JSON, schema_ref("Health"))},
                (500,),
            ),
        ),
        Route(
            "readyz",
            "GET",
            "/readyz",
            health.readyz,
            Operation(
                "Readiness",
                "Elasticsearch answers and every alias exists (503 otherwise).",
                "operations",
                {200: (JSON, schema_ref("Readiness")), 503: (JSON, schema_ref("Readiness"))},
                (500,),
            ),
        ),
        Route(
            "openapi",
            "GET",
            f"{API_PREFIX}/openapi.json",
            docs.serve_openapi,
            Operation(
                "This API description",
                "OpenAPI 3.1.",
                "operations",
                {200: (JSON, {"type": "object"})},
            ),
        ),
        Route(
            "docs",
            "GET",
            DOCS_PATH,
            docs.docs_page,
            Operation(
                "Human-readable documentation",
                "A page that renders openapi.json.",
                "operations",
                {200: ("text/html", {"type": "string"})},
            ),
        ),
    ]
    if settings.metrics_enabled:
        routes.append(
            Route(
                "metrics",
                "GET",
                "/metrics",
                metrics_handler,
                Operation(
                    "Prometheus metrics",
                    "Request counts and latency by route and status; Elasticsearch call latency.",
                    "operations",
                    {200: ("text/plain", {"type": "string"})},
                    (500,),
                ),
            )
        )
    return routes


def _moved(route: Route, path: str, name: str | None = None) -> Route:
    return Route(name or route.name, route.method, path, route.handler, route.operation)


def mounted_routes(settings: Settings) -> list[tuple[Route, bool]]:
    """Every feature's route as mounted, with whether it is the sandbox copy."""
    mounted: list[tuple[Route, bool]] = []
    for feature in FEATURES:
        prefix = feature.mount or API_PREFIX
        mounted += [(_moved(r, prefix + r.path), False) for r in feature.routes]
    if settings.sandbox:
        mounted += [
            (_moved(r, SANDBOX_PREFIX + r.path, SANDBOX_ROUTE_PREFIX + r.name), True)
            for feature in FEATURES
            if feature.mount is None
            for r in feature.routes
        ]
    return mounted


def setup_routes(app: web.Application, settings: Settings) -> None:
    routes = service_routes(settings) + [route for route, _ in mounted_routes(settings)]
    app.router.add_static(DOCS_PATH + docs.ASSETS_PATH, docs.ASSETS, name="docs-assets")
    for route in routes:
        path = route.path.replace("{npi}", NPI_SEGMENT).replace("{bidId}", BID_ID_SEGMENT)
        if route.method == "GET":
            app.router.add_get(path, route.handler, name=route.name)
        else:
            app.router.add_route(route.method, path, route.handler, name=route.name)
    for feature in FEATURES:
        if feature.problem_renderer is not None and feature.mount is not None:
            register_problem_renderer(app, feature.mount, feature.problem_renderer)
        app.on_startup.extend(feature.startup)
        # After the Elasticsearch client's context (create_app): started after it, ended before.
        app.cleanup_ctx.extend(feature.background)
