"""The delivery loop each service process runs beside its requests (``PD_WEBHOOK_DELIVERY``):
a round every ``PD_WEBHOOK_POLL_S``, at once again while rounds find work. A failed round (an
Elasticsearch outage) is logged and the loop goes on: it recovers when Elasticsearch does."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from aiohttp import web

from service.watches.delivery import Deliverer
from service.web.keys import ES, INDEX_NAMES, SETTINGS

log = logging.getLogger(__name__)


async def _deliver(deliverer: Deliverer, every_s: float) -> None:
    while True:
        try:
            busy = (await deliverer.run_once()).full
        except Exception:
            log.warning("webhook delivery round failed", exc_info=True)
            busy = False
        await asyncio.sleep(0 if busy else every_s)


async def delivery_loop(app: web.Application) -> AsyncIterator[None]:
    settings = app[SETTINGS]
    if not settings.webhook_delivery:
        yield
        return
    deliverer = Deliverer(app[ES], app[INDEX_NAMES], settings)
    task = asyncio.create_task(_deliver(deliverer, settings.webhook_poll_s))
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await deliverer.close()
