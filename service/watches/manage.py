"""The watches' use cases: make, list, read and delete a subject's watches, and read a watch's
delivery attempts. A watch is its creator's alone: to any other subject it does not exist."""

from __future__ import annotations

import base64
import secrets
import uuid
from datetime import UTC, datetime

from elasticsearch import AsyncElasticsearch

from core.change_log import encode_cursor
from core.changes import instant
from core.index_contract import IndexNames
from core.plans import canonical_bid_id
from core.watches import MAX_WATCHES_PER_SUBJECT, WatchDoc
from service.changes.read import changes_through
from service.errors import InvalidInput, TooManyWatches, WatchNotFound
from service.watches import store
from service.watches.models import (
    SECRET_PREFIX,
    CreatedWatch,
    DeliveryList,
    Watch,
    WatchList,
    WatchRequest,
    WatchStatus,
)
from service.watches.targets import RefusedTarget, TargetRules, check_url

SECRET_BYTES = 32


def _status(doc: WatchDoc) -> WatchStatus:
    waiting = doc["failures"] > 0 and doc["state"] == "active"
    return {
        "state": doc["state"],
        "reason": doc["reason"],
        "deliveredThrough": encode_cursor(doc["deliveredThrough"]),
        "failures": doc["failures"],
        "nextTryAt": doc["nextTryAt"] if waiting else None,
    }


def answer(doc: WatchDoc) -> Watch:
    return {
        "id": doc["id"],
        "npis": doc["npis"],
        "bidIds": doc["bidIds"],
        "kinds": doc["kinds"],
        "url": doc["url"],
        "createdAt": doc["createdAt"],
        "status": _status(doc),
    }


async def create_watch(
    es: AsyncElasticsearch,
    names: IndexNames,
    subject: str,
    request: WatchRequest,
    rules: TargetRules,
) -> CreatedWatch:
    """A watch of the changes after now (the feed's present mark)."""
    try:
        await check_url(request.url, rules)
    except RefusedTarget as refused:
        raise InvalidInput("url", str(refused), code="webhook_target_refused") from None
    await store.ensure_indices(es, names)
    if await store.count_watches(es, names, subject) >= MAX_WATCHES_PER_SUBJECT:
        raise TooManyWatches(MAX_WATCHES_PER_SUBJECT)
    through, _ = await changes_through(es, names)
    now = instant(datetime.now(UTC))
    secret = request.secret or SECRET_PREFIX + base64.b64encode(
        secrets.token_bytes(SECRET_BYTES)
    ).decode("ascii")
    doc: WatchDoc = {
        "id": uuid.uuid4().hex,
        "subject": subject,
        "npis": sorted(set(request.npis)),
        "bidIds": sorted({canonical_bid_id(b) or b for b in request.bidIds}),
        "kinds": sorted(set(request.kinds)),
        "url": request.url,
        "secret": secret,
        "createdAt": now,
        "state": "active",
        "reason": None,
        "deliveredThrough": through,
        "batchThrough": None,
        "batchId": None,
        "failures": 0,
        "failingSince": None,
        "nextTryAt": now,
        "leaseOwner": None,
        "leaseUntil": now,
    }
    await store.put_watch(es, names, doc)
    return {**answer(doc), "secret": secret}


async def _owned(
    es: AsyncElasticsearch, names: IndexNames, subject: str, watch_id: str
) -> WatchDoc:
    found = await store.read_watch(es, names, watch_id)
    if found is None or found.doc["subject"] != subject:
        raise WatchNotFound(watch_id)
    return found.doc


async def list_watches(es: AsyncElasticsearch, names: IndexNames, subject: str) -> WatchList:
    docs = await store.subjects_watches(es, names, subject, MAX_WATCHES_PER_SUBJECT)
    return {"watches": [answer(doc) for doc in docs]}


async def read_watch(
    es: AsyncElasticsearch, names: IndexNames, subject: str, watch_id: str
) -> Watch:
    return answer(await _owned(es, names, subject, watch_id))


async def delete_watch(
    es: AsyncElasticsearch, names: IndexNames, subject: str, watch_id: str
) -> None:
    await _owned(es, names, subject, watch_id)
    await store.remove_watch(es, names, watch_id)


async def read_deliveries(
    es: AsyncElasticsearch, names: IndexNames, subject: str, watch_id: str
) -> DeliveryList:
    doc = await _owned(es, names, subject, watch_id)
    attempts = await store.attempts_of(es, names, watch_id)
    return {
        "status": _status(doc),
        "deliveries": [
            {
                "webhookId": a["webhookId"],
                "attempt": a["attempt"],
                "at": a["at"],
                "changes": a["changes"],
                "firstChange": a["firstChange"],
                "lastChange": a["lastChange"],
                "outcome": a["outcome"],
                "httpStatus": a["httpStatus"],
                "error": a["error"],
                "nextTryAt": a["nextTryAt"],
            }
            for a in attempts
        ],
    }
