"""The version being served, changed in place by ``update``: finding it, its record
(``_meta.pd``: source files, updates applied), and writes that become visible together.

Readers see a document only after a refresh (the service reads lookups with ``realtime``
off), so an update pauses the refresh of the indices it writes and refreshes them all in one
request at the end: the search and lookup documents of a provider appear together, and a
whole file's changes at once. Whatever an interrupted update left unrefreshed is made visible
when the next update starts (every provider's documents are written in one bulk request, so it
is whole), and that update, run again, completes it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexKind, IndexNames
from indexer import versions

MAX_HISTORY = 200  # updates remembered per version (four years of weekly files)


@dataclass(frozen=True)
class LiveVersion:
    version: str
    indices: dict[IndexKind, str]
    record: dict[str, Any]  # _meta.pd: state, loaded, sources, updates

    @property
    def updates(self) -> list[dict[str, Any]]:
        return list(self.record.get("updates", []))


async def live_version(es: AsyncElasticsearch, names: IndexNames) -> LiveVersion:
    """The complete version the aliases serve; LookupError when there is none."""
    serving = await versions.current_version(es, names)
    found = (await versions.scan(es, names)).get(serving) if serving else None
    if found is None or not found.complete:
        raise LookupError(
            f"no complete version is served under {names.prefix!r}: run provider-indexer load"
        )
    return LiveVersion(serving or "", dict(found.indices), dict(found.meta["search"]))


async def record_update(es: AsyncElasticsearch, live: LiveVersion, entry: dict[str, Any]) -> None:
    """Append ``entry`` to the version's list of updates (on every index of the version)."""
    updates = [*live.updates, entry][-MAX_HISTORY:]
    await es.indices.put_mapping(
        index=",".join(live.indices.values()), meta={"pd": {**live.record, "updates": updates}}
    )


async def refresh_paused(es: AsyncElasticsearch, indices: list[str]) -> bool:
    """Whether a writer left the refresh of these indices off (an update that did not finish)."""
    found = await es.indices.get_settings(index=",".join(indices), name="index.refresh_interval")
    return any(
        body["settings"].get("index", {}).get("refresh_interval") == "-1" for body in found.values()
    )


async def resume_refresh(es: AsyncElasticsearch, indices: list[str]) -> None:
    """Everything written visible, and the refresh schedule back to the serving default."""
    if indices:
        joined = ",".join(indices)
        await es.indices.refresh(index=joined)
        await es.indices.put_settings(index=joined, settings={"refresh_interval": None})


@contextlib.asynccontextmanager
async def visible_together(es: AsyncElasticsearch, indices: list[str]) -> AsyncIterator[None]:
    """Writes in the body become visible at its end, in one refresh of all ``indices``."""
    joined = ",".join(indices)
    await es.indices.refresh(index=joined)  # what an interrupted update left, first
    await es.indices.put_settings(index=joined, settings={"refresh_interval": "-1"})
    try:
        yield
    finally:
        # Also when failing or cancelled: what was written is whole per provider.
        await versions.finish_even_if_cancelled(resume_refresh(es, indices))
