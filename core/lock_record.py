"""The indexer's job lock as stored: one document in ``IndexNames.lock()`` (indexer.lock), read
by id only, which says which job (load, update) owns an index prefix, like the publication record
(core.publication) says which one last finished."""

from __future__ import annotations

from typing import Final, TypedDict

from core.index_fields import FieldNames

LOCK_ID: Final = "lock"  # the lock index's one document


class LockHolder(TypedDict):
    """Who holds the lock, as every reader sees it."""

    job: str  # "load" or "update"
    detail: str  # what it loads or applies (a file's name), or ""
    owner: str  # host:pid (indexer.versions.owner)
    started: str  # ISO instant, to the second
    heartbeat: str  # ISO instant, rewritten while the job runs


class LockRecord(LockHolder):
    """The stored document: the holder and the random token of its acquisition, by which a
    write whose answer was lost is recognised as its own."""

    token: str


# Read by id only: nothing of it is parsed (its mapping: ``LOCK_FIELDS.mapping()``).
LOCK_FIELDS = FieldNames("lock", LockRecord, indexed=False)
