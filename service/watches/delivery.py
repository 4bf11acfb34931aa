"""Webhook delivery (DESIGN 5.10): each due watch's next batch of matching changes POSTed as a
Standard Webhook, by whichever process claims the watch first (store.write_if_unchanged).

A round (``run_once``) reads the watches behind the feed's mark, due and not leased. For each:
- nothing matching since its last delivery: its mark moves on, nothing is sent;
- else the batch (at most ``MAX_BATCH_CHANGES`` changes and ``MAX_PAYLOAD_BYTES``) is fixed
  with the claim (``batchThrough``, its webhook id) and the lease, then POSTed;
- a 2xx moves the mark past the batch; anything else (another status, a timeout, a refused
  target) is an attempt that failed: retried after ``retry_delay``, the watch marked failing
  once the batch has failed for ``GIVE_UP_AFTER``.
A process that dies holding a lease loses nothing: once the lease runs out another process
sends the same batch with the same webhook id (at least once, in order per watch).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import aiohttp
import orjson
from elasticsearch import AsyncElasticsearch
from standardwebhooks import Webhook
from yarl import URL

from core.change_log import ChangeDoc, answered, encode_cursor
from core.changes import instant
from core.index_contract import IndexNames
from core.watches import (
    MAX_BATCH_CHANGES,
    MAX_PAYLOAD_BYTES,
    WEBHOOK_TYPE,
    AttemptDoc,
    Outcome,
    WatchDoc,
    batch_id,
    gives_up,
    retry_delay,
)
from service.changes.read import Followed, changes_through, matching_changes
from service.watches.resolver import GuardedResolver
from service.watches.store import Stored, due_watches, record_attempt, write_if_unchanged
from service.watches.targets import TargetRules, refusal_of_literal
from service.web.settings import Settings

log = logging.getLogger(__name__)
USER_AGENT = "provider-directory-webhooks/1"


def followed_by(watch: WatchDoc) -> Followed:
    return Followed(watch["npis"], watch["bidIds"], watch["kinds"])


def payload(watch_id: str, changes: list[ChangeDoc], through: int, sent: datetime) -> bytes:
    """A webhook's body: the changes, and the feed cursor after them."""
    return orjson.dumps(
        {
            "type": WEBHOOK_TYPE,
            "timestamp": instant(sent),
            "data": {
                "watchId": watch_id,
                "changes": [answered(change) for change in changes],
                "nextCursor": encode_cursor(through),
            },
        }
    )


def fitted(changes: list[ChangeDoc], through: int, watch_id: str) -> tuple[list[ChangeDoc], int]:
    """The batch a webhook carries, and the feed number it goes up to: the changes that fit
    ``MAX_PAYLOAD_BYTES`` (one at least); all of them, up to ``through``, when none was cut."""
    sample = datetime(2000, 1, 1, tzinfo=UTC)
    kept = len(changes)
    while kept > 1 and len(payload(watch_id, changes[:kept], through, sample)) > MAX_PAYLOAD_BYTES:
        kept //= 2
    if kept < len(changes) or len(changes) == MAX_BATCH_CHANGES:
        return changes[:kept], changes[kept - 1]["seq"]
    return changes, through


@dataclass(frozen=True)
class Round:
    """What a round did: the due watches it read (``full``: as many as a round takes, more may
    be due), and the webhooks it sent (a failed attempt counts)."""

    due: int
    sent: int
    full: bool


class Deliverer:
    """One process's share of the delivery work; ``owner`` names it in the leases it takes."""

    def __init__(self, es: AsyncElasticsearch, names: IndexNames, settings: Settings) -> None:
        self._es, self._names, self._settings = es, names, settings
        self._rules = TargetRules.of(settings.webhook_allow, settings.webhook_resolve_names)
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._session: aiohttp.ClientSession | None = None
        self._limit = asyncio.Semaphore(settings.webhook_concurrency)

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = aiohttp.TCPConnector(
                resolver=GuardedResolver(self._rules), limit=self._settings.webhook_concurrency
            )
            self._session = aiohttp.ClientSession(connector=connector)
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def run_once(self, now: datetime | None = None) -> Round:
        """One round at ``now``."""
        moment = now or datetime.now(UTC)
        through, _ = await changes_through(self._es, self._names)
        most = 4 * self._settings.webhook_concurrency
        due = await due_watches(self._es, self._names, through, instant(moment), most)
        sent = await asyncio.gather(*(self._serve(stored, through, moment) for stored in due))
        return Round(due=len(due), sent=sum(sent), full=len(due) == most)

    async def _serve(self, stored: Stored, through: int, now: datetime) -> int:
        async with self._limit:
            watch = stored.doc
            batch, batch_through = await self._batch(watch, through)
            if not batch:
                delivered = _delivered(watch, batch_through, now)
                await write_if_unchanged(self._es, self._names, stored, delivered)
                return 0
            lease = now + timedelta(seconds=self._settings.webhook_lease_s)
            claim: WatchDoc = {
                **watch,
                "batchThrough": batch_through,
                "batchId": batch_id(watch["id"], batch_through),
                "leaseOwner": self.owner,
                "leaseUntil": instant(lease),
            }
            claimed = await write_if_unchanged(self._es, self._names, stored, claim)
            if claimed is None:
                return 0  # another process has it
            status, error = await self._post(claim, batch, batch_through)
            attempt = watch["failures"] + 1
            outcome: Outcome = "delivered" if error is None else "failed"
            after = (
                _delivered(claim, batch_through, now)
                if error is None
                else _failed(claim, attempt, error, now)
            )
            retried = error is not None and after["state"] == "active"
            tried: AttemptDoc = {
                "watchId": watch["id"],
                "webhookId": claim["batchId"] or "",
                "attempt": attempt,
                "at": instant(now),
                "changes": len(batch),
                "firstChange": batch[0]["id"],
                "lastChange": batch[-1]["id"],
                "outcome": outcome,
                "httpStatus": status,
                "error": error,
                "nextTryAt": after["nextTryAt"] if retried else None,
            }
            await record_attempt(self._es, self._names, tried)
            await write_if_unchanged(self._es, self._names, claimed, after)
            return 1

    async def _batch(self, watch: WatchDoc, through: int) -> tuple[list[ChangeDoc], int]:
        """The changes the watch's next webhook carries and the feed number they go up to: the
        batch a failed attempt fixed, else the next that fits."""
        after, held = watch["deliveredThrough"], watch["batchThrough"]
        upto = through if held is None else held
        followed = followed_by(watch)
        found = await matching_changes(
            self._es, self._names, followed, after, upto, MAX_BATCH_CHANGES
        )
        return (found, upto) if held is not None else fitted(found, upto, watch["id"])

    async def _post(
        self, watch: WatchDoc, batch: list[ChangeDoc], through: int
    ) -> tuple[int | None, str | None]:
        """What the receiver answered, and why the attempt failed (None: delivered)."""
        url = URL(watch["url"])
        refusal = refusal_of_literal(url, self._rules)
        if refusal is not None:
            return None, f"refused: {refusal}"
        sent = datetime.now(UTC)
        body = payload(watch["id"], batch, through, sent)
        webhook_id = watch["batchId"] or ""
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "webhook-id": webhook_id,
            "webhook-timestamp": str(int(sent.timestamp())),
            "webhook-signature": Webhook(watch["secret"]).sign(webhook_id, sent, body),
        }
        timeout = aiohttp.ClientTimeout(total=self._settings.webhook_timeout_s)
        try:
            async with self._client().post(
                url, data=body, headers=headers, allow_redirects=False, timeout=timeout
            ) as response:
                status = response.status
        except TimeoutError:
            return None, f"no answer within {self._settings.webhook_timeout_s:g} s"
        except (aiohttp.ClientError, OSError) as failure:
            return None, _said(failure)
        return status, None if 200 <= status < 300 else f"answered {status}"


def _said(failure: BaseException) -> str:
    return (str(failure) or type(failure).__name__)[:500]


def _delivered(watch: WatchDoc, through: int, now: datetime) -> WatchDoc:
    at = instant(now)
    return {
        **watch,
        "deliveredThrough": through,
        "batchThrough": None,
        "batchId": None,
        "failures": 0,
        "failingSince": None,
        "nextTryAt": at,
        "leaseOwner": None,
        "leaseUntil": at,
    }


def _failed(watch: WatchDoc, failures: int, error: str, now: datetime) -> WatchDoc:
    at = instant(now)
    since = watch["failingSince"] or at
    failing = gives_up(datetime.fromisoformat(since), now)
    return {
        **watch,
        "failures": failures,
        "failingSince": since,
        "state": "failing" if failing else "active",
        "reason": f"every attempt since {since} failed; the last: {error}" if failing else None,
        "nextTryAt": at if failing else instant(now + retry_delay(failures)),
        "leaseOwner": None,
        "leaseUntil": at,
    }
