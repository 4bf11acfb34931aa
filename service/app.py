"""The aiohttp application factory."""

from __future__ import annotations

from collections.abc import AsyncIterator

from aiohttp import web

from core.es_client import make_client
from core.index_contract import IndexNames
from service.auth import Verifier
from service.errors import problem_middleware
from service.keys import ES, INDEX_NAMES, SETTINGS, VERIFIER
from service.middleware import auth_middleware, request_id_middleware
from service.routes import setup_routes
from service.settings import Settings


async def elasticsearch_context(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    app[ES] = make_client(
        settings.elasticsearch_url, request_timeout=settings.es_request_timeout_s, max_retries=1
    )
    yield
    await app[ES].close()


def create_app(settings: Settings | None = None) -> web.Application:
    settings = settings or Settings()
    app = web.Application(
        middlewares=[request_id_middleware, problem_middleware, auth_middleware],
        client_max_size=settings.max_body_bytes,
    )
    app[SETTINGS] = settings
    app[INDEX_NAMES] = IndexNames(settings.index_prefix)
    app[VERIFIER] = Verifier(settings)
    app.cleanup_ctx.append(elasticsearch_context)
    setup_routes(app)
    return app
