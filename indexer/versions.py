"""Versioned indices behind aliases: create, finish, swap atomically, roll back, prune.

Every load writes one new version of every index kind; the service only ever sees aliases, and one
``update_aliases`` call moves all of them, so readers never see a mix of versions or no index.
Each index carries its load state in the mapping's ``_meta`` ("loading" until verified, then
"complete", with the owning process, and the document layout ``SCHEMA``), so a version left
behind by a killed load, or written in another layout, is recognisable.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from elasticsearch import AsyncElasticsearch, NotFoundError

from core.index_contract import (
    INDEX_KINDS,
    MAPPINGS,
    SCHEMA,
    VERSION_FORMAT,
    IndexKind,
    IndexNames,
    index_settings,
)
from core.processes import pid_alive

LOADING_SETTINGS = {
    "refresh_interval": "-1",
    "number_of_replicas": 0,
    # A failed load is thrown away, so per-request fsync buys nothing while loading.
    "translog.durability": "async",
    # Nobody searches the new version yet: its merges (the final one-segment merge above all)
    # need not yield disk bandwidth. Throttled, that merge took 6+ minutes at 9M, not 1.
    "merge.scheduler.auto_throttle": False,
}
SERVING_SETTINGS = {
    "refresh_interval": None,
    "translog.durability": "request",
    "merge.scheduler.auto_throttle": None,
}
_VERSION = re.compile(r"[0-9]{8}t[0-9]{12}")
LOADING, COMPLETE = "loading", "complete"
_T = TypeVar("_T")


def new_version() -> str:
    return datetime.now(UTC).strftime(VERSION_FORMAT)


def owner() -> str:
    """This process, as recorded on the indices it creates and the lock it holds."""
    return f"{socket.gethostname()}:{os.getpid()}"


def owner_alive(recorded: str | None) -> bool | None:
    """Whether the process an ``owner()`` string names still runs: None when it ran on another
    host (or the record is not one), which this host cannot tell."""
    host, _, pid = (recorded or "").rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return None
    return pid_alive(int(pid))


@dataclass
class Version:
    """The indices of one version as found in the cluster."""

    version: str
    indices: dict[IndexKind, str] = field(default_factory=dict)
    meta: dict[IndexKind, dict[str, Any]] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """Loaded, verified and in today's document layout (an older layout cannot be served)."""
        states = {self.meta.get(kind, {}).get("state") for kind in self.indices}
        schemas = {self.meta.get(kind, {}).get("schema") for kind in self.indices}
        whole = len(self.indices) == len(INDEX_KINDS)
        return whole and states == {COMPLETE} and schemas == {SCHEMA}

    @property
    def owner(self) -> str | None:
        return next((m["owner"] for m in self.meta.values() if m.get("owner")), None)

    @property
    def loaded_at(self) -> str | None:
        return next((m["loaded"] for m in self.meta.values() if m.get("loaded")), None)


@dataclass(frozen=True)
class AliasState:
    alias: str
    index: str | None
    documents: int
    version: str | None
    loaded_at: str | None = None


async def finish_even_if_cancelled(awaitable: Awaitable[_T]) -> _T:
    """Await a request's outcome even when cancelled meanwhile, then let the cancellation through.

    Elasticsearch completes a request whose client went away, so abandoning one would make the
    clean-up wrong: an index created after it was deleted, aliases swapped after we gave up.
    """
    task = asyncio.ensure_future(awaitable)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        await asyncio.wait([task])
        raise


async def create_version(
    es: AsyncElasticsearch,
    names: IndexNames,
    version: str,
    shards: int,
    load_settings: Mapping[str, Any] | None = None,
) -> dict[IndexKind, str]:
    """Empty indices of every kind for ``version``, tuned for bulk loading (``load_settings``:
    index settings over the defaults, for the search index, the one that costs)."""
    created = {kind: names.versioned(kind, version) for kind in INDEX_KINDS}
    meta = {"pd": {"version": version, "state": LOADING, "owner": owner(), "schema": SCHEMA}}

    def settings(kind: IndexKind) -> dict[str, Any]:
        base = {**index_settings(kind, shards=shards, replicas=0), **LOADING_SETTINGS}
        return {**base, **(load_settings or {})} if kind == "search" else base

    requests = [
        finish_even_if_cancelled(
            es.indices.create(
                index=index,
                settings=settings(kind),
                mappings={**MAPPINGS[kind], "_meta": meta},
                # Every primary started before the first bulk (no replicas yet while loading).
                wait_for_active_shards="all",
            )
        )
        for kind, index in created.items()
    ]
    try:
        # All at once; every request ends before the clean-up below could run.
        failures = [
            outcome
            for outcome in await asyncio.gather(*requests, return_exceptions=True)
            if isinstance(outcome, BaseException)
        ]
        if failures:
            raise failures[0]
    except BaseException:
        await delete_indices(es, list(created.values()))
        raise
    return created


FORCE_MERGE_TIMEOUT_S = 3 * 3600


async def finish_version(
    es: AsyncElasticsearch, indices: list[str], replicas: int, force_merge: bool = True
) -> None:
    """Make everything searchable, merged into one segment per shard (before replicas exist, so
    the merge is done once), then restore normal refresh, durability and replicas.

    A bulk load leaves tens of segments; every query pays per segment (term lookups, fuzzy
    automata), and at 9M one segment halved search latency for a minute of merging
    (BENCHMARKS.md). The new version is not served yet, so nobody waits on the merge."""
    await es.indices.refresh(index=",".join(indices))
    if force_merge:
        await es.options(request_timeout=FORCE_MERGE_TIMEOUT_S).indices.forcemerge(
            index=",".join(indices), max_num_segments=1
        )
    await es.indices.put_settings(
        index=",".join(indices), settings={**SERVING_SETTINGS, "number_of_replicas": replicas}
    )


async def mark_complete(
    es: AsyncElasticsearch,
    indices: list[str],
    version: str,
    record: Mapping[str, Any] | None = None,
) -> None:
    """Verified: servable from now on. ``record``: more to keep in ``_meta.pd`` (the source
    files, indexer.provenance)."""
    loaded = datetime.now(UTC).isoformat(timespec="seconds")
    meta = {
        "pd": {
            **(record or {}),
            "version": version,
            "state": COMPLETE,
            "owner": owner(),
            "loaded": loaded,
            "schema": SCHEMA,
        }
    }
    await es.indices.put_mapping(index=",".join(indices), meta=meta)


async def count_documents(es: AsyncElasticsearch, indices: dict[IndexKind, str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for kind, index in indices.items():
        response = await es.count(index=index)
        counts[kind] = int(response["count"])
    return counts


async def swap_aliases(es: AsyncElasticsearch, names: IndexNames, version: str) -> None:
    """Point every alias at ``version`` in one atomic request."""
    actions: list[dict[str, Any]] = []
    for kind in INDEX_KINDS:
        alias = names.alias(kind)
        actions.append({"remove": {"index": names.pattern(kind), "alias": alias}})
        actions.append({"add": {"index": names.versioned(kind, version), "alias": alias}})
    await finish_even_if_cancelled(es.indices.update_aliases(actions=actions))


async def delete_indices(es: AsyncElasticsearch, indices: list[str]) -> None:
    if indices:
        await es.indices.delete(index=",".join(indices), ignore_unavailable=True)


async def scan(es: AsyncElasticsearch, names: IndexNames) -> dict[str, Version]:
    """Every version under ``names``, complete or not, by version string."""
    patterns = ",".join(names.pattern(kind) for kind in INDEX_KINDS)
    found = await es.indices.get_mapping(index=patterns, allow_no_indices=True)
    versions: dict[str, Version] = {}
    for index, body in found.items():
        for kind in INDEX_KINDS:
            suffix = index.removeprefix(names.versioned(kind, ""))
            if suffix != index and _VERSION.fullmatch(suffix):
                version = versions.setdefault(suffix, Version(suffix))
                version.indices[kind] = index
                version.meta[kind] = body.get("mappings", {}).get("_meta", {}).get("pd", {})
    return dict(sorted(versions.items()))


async def list_versions(es: AsyncElasticsearch, names: IndexNames) -> list[str]:
    """Versions that were completely loaded and verified, oldest first."""
    return [v for v, found in (await scan(es, names)).items() if found.complete]


async def current_version(es: AsyncElasticsearch, names: IndexNames) -> str | None:
    try:
        found = await es.indices.get_alias(name=names.alias("search"))
    except NotFoundError:
        return None
    prefix = names.versioned("search", "")
    return next((index.removeprefix(prefix) for index in found), None)


async def prune(es: AsyncElasticsearch, names: IndexNames, keep: int = 2) -> list[str]:
    """Delete all but the newest ``keep`` versions, never the one being served."""
    versions = await list_versions(es, names)
    serving = await current_version(es, names)
    doomed = [v for v in versions[:-keep] if v != serving] if keep else []
    indices = [names.versioned(kind, v) for v in doomed for kind in INDEX_KINDS]
    await delete_indices(es, indices)
    return doomed


async def rollback(es: AsyncElasticsearch, names: IndexNames) -> str:
    """Swap every alias back to the version before the one being served."""
    versions = await list_versions(es, names)
    serving = await current_version(es, names)
    older = [v for v in versions if serving is None or v < serving]
    if not older:
        raise LookupError("no previous version to roll back to")
    await swap_aliases(es, names, older[-1])
    return older[-1]


async def alias_states(es: AsyncElasticsearch, names: IndexNames) -> list[AliasState]:
    found_versions = await scan(es, names)
    states: list[AliasState] = []
    for kind in INDEX_KINDS:
        alias = names.alias(kind)
        try:
            found = await es.indices.get_alias(name=alias)
        except NotFoundError:
            states.append(AliasState(alias, None, 0, None))
            continue
        index = next(iter(found))
        count = int((await es.count(index=index))["count"])
        version = index.removeprefix(names.versioned(kind, ""))
        info = found_versions.get(version)
        states.append(AliasState(alias, index, count, version, info.loaded_at if info else None))
    return states
