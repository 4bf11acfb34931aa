"""The aiohttp application factory."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from typing import Any

import orjson
from aiohttp import web
from aiohttp.typedefs import Middleware
from elasticsearch import AsyncElasticsearch

from core import geo
from core.clock import Today, today_utc
from core.es_client import RETRY_ON_STATUS
from core.index_contract import IndexNames
from service.web.auth import Verifier
from service.web.keys import ES, INDEX_NAMES, LIMITER, OPENAPI, SETTINGS, TODAY, VERIFIER
from service.web.logs import tame_aiohttp_logs
from service.web.metrics import METRICS, Metrics, timed_node_class
from service.web.middleware import (
    auth_middleware,
    rate_limit_middleware,
    request_id_middleware,
    sandbox_middleware,
)
from service.web.observe import observe_middleware
from service.web.openapi import openapi_document
from service.web.problems import problem_middleware
from service.web.ratelimit import RateLimiter
from service.web.routes import setup_routes
from service.web.settings import Settings


def make_es_client(settings: Settings, metrics: Metrics | None) -> AsyncElasticsearch:
    """Tight timeouts so an outage is a fast 503; fast failures retried on another node; a short
    dead-node backoff so that, with several nodes, one that comes back is used again within
    seconds (a lone node is always retried)."""
    options: dict[str, Any] = {}
    if metrics is not None:
        options["node_class"] = timed_node_class(metrics.es_latency)
    return settings.connect(
        request_timeout=settings.es_request_timeout_s,
        max_retries=settings.es_max_retries,
        retry_on_status=RETRY_ON_STATUS,
        dead_node_backoff_factor=0.5,
        max_dead_node_backoff=5.0,
        **options,
    )


async def preload_places(_app: web.Application) -> None:
    """ZIP/city tables, loaded before the first request needs them (features load their own)."""
    await asyncio.to_thread(geo.preload)


async def freeze_preloaded(_app: web.Application) -> None:
    # What was preloaded is ~100k long-lived objects: out of the collector's sight, a full
    # collection no longer walks them (it showed as 200 ms p99 spikes under load).
    gc.freeze()


async def elasticsearch_context(app: web.Application) -> AsyncIterator[None]:
    app[ES] = make_es_client(app[SETTINGS], app.get(METRICS))
    yield
    await app[ES].close()


def _middlewares(settings: Settings) -> list[Middleware]:
    # Outermost first: the request id exists before anything is logged or counted, and the
    # observers see the final answer (after the problem middleware turned errors into one).
    chain: list[Middleware] = [request_id_middleware, observe_middleware]
    if settings.sandbox:
        chain.append(sandbox_middleware)
    return [*chain, problem_middleware, auth_middleware, rate_limit_middleware]


def create_app(settings: Settings | None = None, *, today: Today = today_utc) -> web.Application:
    """The service; ``today`` is its clock for coverage dates (tests pin it)."""
    settings = settings or Settings()
    tame_aiohttp_logs()
    app = web.Application(
        middlewares=_middlewares(settings), client_max_size=settings.max_body_bytes
    )
    app[SETTINGS] = settings
    app[TODAY] = today
    app[INDEX_NAMES] = IndexNames(settings.index_prefix)
    app[VERIFIER] = Verifier(settings)
    if settings.metrics_enabled:
        app[METRICS] = Metrics()
    if settings.rate_limit_per_s > 0:
        app[LIMITER] = RateLimiter(settings.rate_limit_per_s, settings.rate_limit_burst)
    app[OPENAPI] = orjson.dumps(openapi_document(settings))
    app.cleanup_ctx.append(elasticsearch_context)
    app.on_startup.append(preload_places)
    setup_routes(app, settings)
    app.on_startup.append(freeze_preloaded)
    return app
