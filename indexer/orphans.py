"""Clean-up of versions that a killed load left behind (SIGKILL, power loss: no ``finally``).

A version is an orphan when it is not served and either never finished loading or is newer than
the served one (a finished load that never swapped, or the version a rollback moved away from).
It is removed only when the process that created it is gone: on this host when its pid no
longer exists, from another host only after ``STALE_AFTER`` (a load elsewhere may be running).
Complete versions older than the served one are rollback targets and are left to ``prune``.
Before deleting, bulk requests still writing to an orphan are waited for: Elasticsearch finishes
a request whose client was killed, and would otherwise re-create the deleted index.
"""

from __future__ import annotations

import asyncio
import time
import warnings
from datetime import UTC, datetime, timedelta

from elasticsearch import AsyncElasticsearch
from elasticsearch.exceptions import GeneralAvailabilityWarning

from core.index_contract import IndexNames, version_started
from indexer import versions

STALE_AFTER = timedelta(hours=24)
DRAIN_TIMEOUT_S = 60.0


def _owner_gone(found: versions.Version, now: datetime) -> bool:
    alive = versions.owner_alive(found.owner)
    if alive is not None:
        return not alive
    return now - version_started(found.version) > STALE_AFTER


async def _writing_to(es: AsyncElasticsearch, indices: list[str]) -> bool:
    with warnings.catch_warnings():  # the task list API is "technical preview"; stable for years
        warnings.simplefilter("ignore", GeneralAvailabilityWarning)
        response = await es.tasks.list(actions="indices:data/write/bulk*", detailed=True)
    descriptions = [
        task.get("description", "")
        for node in response.get("nodes", {}).values()
        for task in node.get("tasks", {}).values()
    ]
    return any(index in text for text in descriptions for index in indices)


async def _drain(es: AsyncElasticsearch, indices: list[str]) -> None:
    deadline = time.monotonic() + DRAIN_TIMEOUT_S
    while time.monotonic() < deadline and await _writing_to(es, indices):  # noqa: ASYNC110
        await asyncio.sleep(0.2)


async def remove_orphans(es: AsyncElasticsearch, names: IndexNames) -> list[str]:
    """Delete orphaned versions (see the module docstring); returns their version strings."""
    serving = await versions.current_version(es, names)
    now = datetime.now(UTC)
    removed: list[str] = []
    for version, found in (await versions.scan(es, names)).items():
        if version == serving:
            continue
        kept_for_rollback = found.complete and serving is not None and version < serving
        if kept_for_rollback or not _owner_gone(found, now):
            continue
        indices = list(found.indices.values())
        await _drain(es, indices)
        await versions.delete_indices(es, indices)
        removed.append(version)
    return removed
