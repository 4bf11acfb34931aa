"""Waiting until a shard no longer keeps its documents' history, before a load's force merge.

The search index's stored source leaves out the terms made from the provider and locations
(``core.search_fields.DERIVED_FIELDS``). Elasticsearch then keeps each document whole a second time,
as ``_recovery_source``, for every operation a retention lease of its shard still covers, and a
merge drops that copy only for operations the leases have passed. Leases are renewed every 30
seconds: a force merge run right after the bulk keeps the copy for good (490 bytes per provider
at 134k, BENCHMARKS.md "Issue 35"); run once they have passed the last operation, it drops it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any

from elasticsearch import AsyncElasticsearch

log = logging.getLogger(__name__)

# Two renewal periods; past that the merge runs anyway (the index bigger, not wrong).
HISTORY_WAIT_S = 65.0
# Below this many documents the copy is a few MB, not worth up to 30 s of a load.
HISTORY_WAIT_MIN_DOCUMENTS = 50_000


def _history_released(stats: dict[str, Any]) -> bool:
    """Whether every lease of every shard copy retains nothing up to its last operation."""
    for index in stats["indices"].values():
        for copies in index.get("shards", {}).values():
            for copy in copies:
                last = copy["seq_no"]["max_seq_no"]
                leases = copy["retention_leases"]["leases"]
                if any(lease["retaining_seq_no"] <= last for lease in leases):
                    return False
    return True


async def release_history(
    es: AsyncElasticsearch,
    indices: Sequence[str],
    min_documents: int = HISTORY_WAIT_MIN_DOCUMENTS,
    timeout_s: float = HISTORY_WAIT_S,
    poll_s: float = 1.0,
) -> None:
    """Flush ``indices``; when they hold ``min_documents`` or more, wait (at most
    ``timeout_s``) for their retention leases to pass their last operations."""
    names = ",".join(indices)
    await es.indices.flush(index=names)
    deadline = time.monotonic() + timeout_s
    while True:
        stats = dict(await es.indices.stats(index=names, level="shards", metric="docs"))
        if stats["_all"]["primaries"]["docs"]["count"] < min_documents:
            return
        if _history_released(stats):
            return
        if time.monotonic() >= deadline:
            log.warning("history still retained after %.0f s: merging anyway", timeout_s)
            return
        await asyncio.sleep(poll_s)
