"""The URL map: every route of the service in one place."""

from __future__ import annotations

from aiohttp import web

from service.handlers import coverage, health, providers, search

API_PREFIX = "/v2"


def setup_routes(app: web.Application) -> None:
    app.router.add_get("/healthz", health.healthz, name="healthz")
    app.router.add_get("/readyz", health.readyz, name="readyz")
    app.router.add_post(f"{API_PREFIX}/providers/search", search.search_providers, name="search")
    app.router.add_post(
        f"{API_PREFIX}/providers/coverage", coverage.check_coverage, name="coverage"
    )
    app.router.add_get(f"{API_PREFIX}/providers/{{npi}}", providers.get_provider, name="provider")
    app.router.add_get(
        f"{API_PREFIX}/providers/{{npi}}/locations", providers.get_locations, name="locations"
    )
