"""The per-prefix job lock: ``load`` and ``update`` never run at once on one index prefix.

The lock is one document in ``names.lock()``, created with ``op_type=create`` (a 409 when held)
and read by realtime GET. Its holder rewrites ``heartbeat`` every ``HEARTBEAT_S``; a lock whose
owner is a dead pid on this host, or whose heartbeat is older than ``STALE_AFTER_S`` (an owner
elsewhere), is taken over. Every write is conditional on the ``_seq_no`` last seen, so two
contenders cannot both win and a holder finds out when its lock was taken (``LockLost``).
Each acquisition stores a random token: a write whose answer was lost, then retried and refused
with a 409, is recognised as our own instead of as somebody else's lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from elasticsearch import ApiError, AsyncElasticsearch, ConflictError, NotFoundError, TransportError

from core.index_contract import UNVERSIONED_SETTINGS, IndexNames
from core.index_fields import field_names
from core.lock_record import LOCK_FIELDS, LOCK_ID, LockHolder, LockRecord
from indexer.versions import owner, owner_alive

HEARTBEAT_S = 10.0
STALE_AFTER_S = 60.0
_ID = LOCK_ID
_ATTEMPTS = 3
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class LockInfo:
    """The holder of a prefix's lock (core.lock_record.LockHolder, as stored)."""

    job: str
    detail: str
    owner: str
    started: str
    heartbeat: str

    @classmethod
    def of(cls, source: dict[str, Any]) -> LockInfo:
        return cls(**{name: str(source.get(name, "")) for name in field_names(LockHolder)})

    def record(self, token: str) -> LockRecord:
        """The lock document of this holder, for the acquisition ``token``."""
        holder = LockHolder(
            job=self.job,
            detail=self.detail,
            owner=self.owner,
            started=self.started,
            heartbeat=self.heartbeat,
        )
        return LockRecord(**holder, token=token)

    def heartbeat_age_s(self) -> float:
        try:
            return (datetime.now(UTC) - datetime.fromisoformat(self.heartbeat)).total_seconds()
        except (ValueError, TypeError):  # unreadable or without a time zone: no proof of life
            return float("inf")

    def describe(self) -> str:
        age = self.heartbeat_age_s()
        what = _what(self.job, self.detail)
        return f"{what} by {self.owner} since {self.started} (heartbeat {age:.0f} s ago)"


def _what(job: str, detail: str) -> str:
    return f"{job} of {detail}" if detail else job


class LockHeld(RuntimeError):
    def __init__(self, names: IndexNames, holder: LockInfo | None, stale_after_s: float) -> None:
        self.holder = holder
        running = holder.describe() if holder else "another job (it is being taken right now)"
        super().__init__(
            f"{names.prefix} is locked: {running} is running. Wait for it to finish; if that "
            f"process is gone, its lock is taken over automatically (at once for a dead pid on "
            f"this host, otherwise {stale_after_s:.0f} s after its last heartbeat)."
        )


class LockLost(RuntimeError):
    """Our lock was taken over or deleted while the job ran; the job was stopped."""

    def __init__(self, names: IndexNames, job: str, detail: str, why: str) -> None:
        what = _what(job, detail)
        super().__init__(f"{names.prefix}: the lock of this {what} was lost, so it stopped: {why}")


@dataclass
class _Held:
    token: str
    seq_no: int
    primary_term: int
    lost: str | None = None  # why the lock is no longer ours


def _guarded(names: IndexNames, seq_no: int, primary_term: int) -> dict[str, Any]:
    """Where a conditional write goes: refused (409) unless the document is as last seen."""
    where = {"index": names.lock(), "id": _ID, "refresh": True}
    return {**where, "if_seq_no": seq_no, "if_primary_term": primary_term}


def _now(timespec: str = "milliseconds") -> str:
    return datetime.now(UTC).isoformat(timespec=timespec)


def _stale(holder: LockInfo, stale_after_s: float) -> bool:
    if owner_alive(holder.owner) is False:
        return True
    return holder.heartbeat_age_s() > stale_after_s


async def _read(es: AsyncElasticsearch, names: IndexNames) -> dict[str, Any] | None:
    try:
        found: dict[str, Any] = (await es.get(index=names.lock(), id=_ID)).body
    except NotFoundError:
        return None
    return found


async def current_lock(es: AsyncElasticsearch, names: IndexNames) -> LockInfo | None:
    found = await _read(es, names)
    return LockInfo.of(found["_source"]) if found else None


async def _ensure_index(es: AsyncElasticsearch, names: IndexNames) -> None:
    if await es.indices.exists(index=names.lock()):
        return
    try:
        await es.indices.create(
            index=names.lock(),
            settings=UNVERSIONED_SETTINGS,
            mappings=LOCK_FIELDS.mapping(),  # read by id only
        )
    except ApiError as error:
        if error.error != "resource_already_exists_exception":
            raise


async def _acquire(
    es: AsyncElasticsearch, names: IndexNames, job: str, detail: str, stale_after_s: float
) -> tuple[_Held, LockInfo | None]:
    await _ensure_index(es, names)
    token = uuid.uuid4().hex
    document = LockInfo(job, detail, owner(), _now("seconds"), _now()).record(token)
    previous = holder = None
    for _ in range(_ATTEMPTS):
        with contextlib.suppress(ConflictError):
            written = await es.create(index=names.lock(), id=_ID, document=document, refresh=True)
            return _Held(token, written["_seq_no"], written["_primary_term"]), previous
        found = await _read(es, names)
        if found is None:
            continue  # released in between
        if found["_source"].get(LOCK_FIELDS.token) == token:
            return _Held(token, found["_seq_no"], found["_primary_term"]), previous
        holder = LockInfo.of(found["_source"])
        if not _stale(holder, stale_after_s):
            break
        with contextlib.suppress(ConflictError):  # lost to another contender: look again
            guard = _guarded(names, found["_seq_no"], found["_primary_term"])
            written = await es.index(document=document, **guard)
            return _Held(token, written["_seq_no"], written["_primary_term"]), holder
        previous = holder
    raise LockHeld(names, holder, stale_after_s)


async def _recheck(es: AsyncElasticsearch, names: IndexNames, held: _Held) -> str | None:
    """After a refused write: None if the lock is still ours (its seq_no adopted), else why not."""
    found = await _read(es, names)
    if found is None:
        return "the lock document was deleted"
    if found["_source"].get(LOCK_FIELDS.token) == held.token:
        held.seq_no, held.primary_term = found["_seq_no"], found["_primary_term"]
        return None
    return f"it is now held by {LockInfo.of(found['_source']).describe()}"


async def _beat(
    es: AsyncElasticsearch,
    names: IndexNames,
    held: _Held,
    every_s: float,
    stale_after_s: float,
    body: asyncio.Task[Any],
) -> None:
    last_beat = time.monotonic()
    while held.lost is None:
        await asyncio.sleep(every_s)
        try:
            try:
                guard = _guarded(names, held.seq_no, held.primary_term)
                written = await es.update(doc={LOCK_FIELDS.heartbeat: _now()}, **guard)
                held.seq_no, held.primary_term = written["_seq_no"], written["_primary_term"]
            except (ConflictError, NotFoundError):
                held.lost = await _recheck(es, names, held)
            last_beat = time.monotonic()
        except (ApiError, TransportError) as error:
            silent_s = time.monotonic() - last_beat
            if silent_s > stale_after_s:  # others may have taken it over by now
                held.lost = f"no heartbeat could be written for {silent_s:.0f} s ({error})"
            else:
                logger.warning("%s: lock heartbeat failed, retrying: %s", names.prefix, error)
    body.cancel()


async def _release(es: AsyncElasticsearch, names: IndexNames, held: _Held) -> None:
    try:
        for _ in range(2):  # again when a cancelled heartbeat landed after all
            with contextlib.suppress(ConflictError):
                await es.delete(**_guarded(names, held.seq_no, held.primary_term))
                return
            if await _recheck(es, names, held) is not None:
                return  # not ours: leave it alone
    except NotFoundError:
        pass
    except (ApiError, TransportError) as error:
        logger.warning("%s: lock not released (taken over once stale): %s", names.prefix, error)


@contextlib.asynccontextmanager
async def job_lock(
    es: AsyncElasticsearch,
    names: IndexNames,
    job: str,
    detail: str,
    *,
    heartbeat_s: float = HEARTBEAT_S,
    stale_after_s: float = STALE_AFTER_S,
) -> AsyncIterator[LockInfo | None]:
    """Hold the prefix's lock while the body runs; yields the stale holder taken over, if any.

    Raises ``LockHeld`` when another live job holds it, and ``LockLost`` (the body cancelled)
    when it is taken over or deleted meanwhile."""
    held, previous = await _acquire(es, names, job, detail, stale_after_s)
    body = asyncio.current_task()
    assert body is not None, "job_lock runs in a task"
    beat = asyncio.create_task(_beat(es, names, held, heartbeat_s, stale_after_s, body))
    try:
        try:
            yield previous
        finally:
            beat.cancel()
            await asyncio.wait([beat])
            await _release(es, names, held)
    except BaseException as error:
        if held.lost is None:
            raise
        # Withdraw the heartbeat's cancellation; one from elsewhere as well still goes through.
        if body.uncancel() and isinstance(error, asyncio.CancelledError):
            raise
        raise LockLost(names, job, detail, held.lost) from error
    if held.lost is not None:  # the body swallowed the cancellation
        body.uncancel()
        raise LockLost(names, job, detail, held.lost)
