"""Watches on the change feed (DESIGN 5.10): what a subject follows, where its webhooks go, and
how far their delivery got; and each delivery attempt. Both live in indices of the prefix that
outlive loads (``IndexNames.watches``, ``IndexNames.deliveries``), as the change feed does.

A watch's delivery state is on the watch itself, so one conditional write (Elasticsearch's
``if_seq_no``) claims it: the process that wins holds its lease until ``leaseUntil`` and the
others leave it alone. Everything matching up to ``deliveredThrough`` (a change feed number)
was delivered; the batch being delivered goes up to ``batchThrough`` and keeps its webhook id
through its retries, so a receiver can tell a retry from a new batch.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Final, Literal

from typing_extensions import TypedDict

from core import index_fields as ix
from core.change_log import ChangeKind

WatchState = Literal["active", "failing"]
Outcome = Literal["delivered", "failed"]

MAX_NPIS: Final = 1000
MAX_BID_IDS: Final = 100
MAX_WATCHES_PER_SUBJECT: Final = 100
MAX_URL_LENGTH: Final = 2000
# A webhook's changes: at most this many, and at most this many bytes of JSON.
MAX_BATCH_CHANGES: Final = 100
MAX_PAYLOAD_BYTES: Final = 256 * 1024
# Retries after a failed attempt: 5 s, 10 s, 20 s ... doubling up to an hour apart; a batch that
# failed for a day marks its watch failing.
FIRST_RETRY: Final = timedelta(seconds=5)
LONGEST_RETRY: Final = timedelta(hours=1)
GIVE_UP_AFTER: Final = timedelta(days=1)
WEBHOOK_TYPE: Final = "provider-directory.changes"


class WatchDoc(TypedDict):
    """A stored watch (``_id``: ``id``)."""

    id: Annotated[str, ix.KEYWORD]
    subject: Annotated[str, ix.KEYWORD]  # the token's subject that created it
    npis: Annotated[list[str], ix.KEYWORD]
    bidIds: Annotated[list[str], ix.KEYWORD]
    kinds: list[ChangeKind]  # empty: every kind
    url: str
    secret: str  # a Standard Webhooks secret (``whsec_`` + base64)
    createdAt: Annotated[str, ix.INSTANT]
    state: Annotated[WatchState, ix.KEYWORD]
    reason: str | None  # why it is failing
    deliveredThrough: Annotated[int, ix.LONG]
    batchThrough: int | None  # the batch being delivered ends at this change number
    batchId: str | None  # its webhook id
    failures: int  # failed attempts of that batch
    failingSince: str | None
    nextTryAt: Annotated[str, ix.INSTANT]
    leaseOwner: str | None
    leaseUntil: Annotated[str, ix.INSTANT]


class AttemptDoc(TypedDict):
    """One delivery attempt (``_id``: the webhook id and the attempt's number)."""

    watchId: Annotated[str, ix.KEYWORD]
    webhookId: str
    attempt: Annotated[int, ix.INTEGER]  # 1 for the first try of a batch
    at: Annotated[str, ix.INSTANT]
    changes: int
    firstChange: str  # the batch's first and last change ids
    lastChange: str
    outcome: Outcome
    httpStatus: int | None
    error: str | None
    nextTryAt: str | None  # when a failed batch is tried again (None: delivered, or given up)


def retry_delay(failures: int) -> timedelta:
    """How long after its ``failures``-th failed attempt a batch is tried again."""
    doubled: timedelta = FIRST_RETRY * 2 ** min(max(failures, 1) - 1, 20)
    return min(doubled, LONGEST_RETRY)


def gives_up(failing_since: datetime, now: datetime) -> bool:
    return now - failing_since >= GIVE_UP_AFTER


def batch_id(watch_id: str, through: int) -> str:
    """The webhook id of a watch's batch ending at change ``through``: the same on a retry."""
    return f"{watch_id}.{through}"
