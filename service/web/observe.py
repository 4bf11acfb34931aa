"""One middleware that times every request once and reports its outcome to the access log and,
when enabled, the Prometheus metrics."""

from __future__ import annotations

import asyncio
import time

from aiohttp import web

from service.web.logs import log_request
from service.web.metrics import CLIENT_CLOSED_REQUEST, METRICS, route_label
from service.web.types import Handler


@web.middleware
async def observe_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    started = time.perf_counter()
    status = 500  # what the client gets if the handler fails in an unexpected way
    try:
        response = await handler(request)
        status = response.status
        return response
    except web.HTTPException as error:
        status = error.status
        raise
    except asyncio.CancelledError:
        status = CLIENT_CLOSED_REQUEST
        raise
    finally:
        seconds = time.perf_counter() - started
        log_request(request, status, seconds)
        metrics = request.app.get(METRICS)
        if metrics is not None:
            metrics.observe_request(request.method, route_label(request), status, seconds)
