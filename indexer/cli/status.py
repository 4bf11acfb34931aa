"""What ``status`` and ``rollback`` tell the operator: the aliases, the live version with the
updates applied to it, the running job; what a rollback leaves behind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from elasticsearch import AsyncElasticsearch

from core.change_log import DEFAULT_RETENTION_DAYS
from core.changes import now
from core.index_contract import INDEX_KINDS, IndexNames
from indexer import versions
from indexer.change_diff import read_served, record_difference
from indexer.change_log import ChangeLog, delivery_backlog, published_marks
from indexer.lock import current_lock, job_lock
from indexer.publication import publish
from indexer.update.live_version import LiveVersion, live_version, refresh_paused, resume_refresh


async def _live_or_none(es: AsyncElasticsearch, names: IndexNames) -> LiveVersion | None:
    try:
        return await live_version(es, names)
    except LookupError:
        return None


def _update_line(update: dict[str, Any]) -> str:
    outcomes = ", ".join(f"{k} {v:,}" for k, v in update.get("outcomes", {}).items() if v)
    rejected = update.get("rejected", 0)
    return (
        f"  {update.get('applied', '?')}  {update.get('kind', '?'):<8} {update.get('file', '?')}:"
        f" {update.get('rows', 0):,} rows ({outcomes or 'nothing'}; rejected {rejected:,})"
    )


def _live_lines(live: LiveVersion) -> list[str]:
    nppes = (live.record.get("sources") or {}).get("nppes") or {}
    source = Path(nppes["path"]).name if nppes.get("path") else "(not recorded)"
    lines = [f"live version       {live.version}, loaded {live.record.get('loaded')} from {source}"]
    if live.updates:
        lines.append(f"updates applied    {len(live.updates)}, oldest first:")
        lines += [_update_line(update) for update in live.updates]
    else:
        lines.append("updates applied    none since the load")
    return lines


async def status_lines(es: AsyncElasticsearch, names: IndexNames) -> tuple[list[str], bool]:
    """The status report, and whether every alias points somewhere."""
    states = await versions.alias_states(es, names)
    lines = [
        f"{s.alias:<32} -> {s.index or '(missing)':<52} {s.documents:>9} docs  {s.loaded_at or '-'}"
        for s in states
    ]
    live = await _live_or_none(es, names)
    if live is not None:
        lines += _live_lines(live)
        if await refresh_paused(es, list(live.indices.values())):
            lines.append(
                "refresh paused     an update did not finish: readers see the data as it was"
                " before it; run that update again"
            )
    through, pruned = await published_marks(es, names)
    lines.append(
        f"change feed        records {pruned + 1:,} to {through:,}"
        if through > pruned
        else "change feed        empty (no update has recorded a change)"
    )
    backlog = await delivery_backlog(es, names, through)
    if backlog is None:
        lines.append("webhooks           no watch")
    else:
        watches, pending, failing = backlog
        lines.append(
            f"webhooks           {watches:,} watches: {pending:,} behind the feed (deliveries"
            f" pending), {failing:,} failing"
        )
    lock = await current_lock(es, names)
    lines.append(f"running job        {lock.describe() if lock else 'none'}")
    return lines, all(state.index is not None for state in states)


async def rollback_lines(
    es: AsyncElasticsearch, names: IndexNames, retention_days: int = DEFAULT_RETENTION_DAYS
) -> list[str]:
    """Swap back to the previous full version; say which updates that drops. The change feed
    records the way back (indexer.change_diff)."""
    async with job_lock(es, names, "rollback", names.prefix):
        live = await _live_or_none(es, names)
        served = await versions.current_version(es, names)
        target = await versions.rollback(es, names)
        # An update killed while writing to the target left its refresh off.
        await resume_refresh(es, [names.versioned(kind, target) for kind in INDEX_KINDS])
        changes = await ChangeLog.begin(es, names, "rollback")
        before = await read_served(es, names, served)
        told = await record_difference(
            es, names, changes, before, target, f"rollback to {target}", now()
        )
        marks = await changes.commit(retention_days)
        await publish(es, names, target, "rollback", marks)
    lines = [f"rolled back to version {target}"]
    lines.append(
        f"change feed        {told.skipped}"
        if told.skipped
        else f"change feed        {told.recorded:,} changes back to it"
    )
    if live is not None and live.updates:
        files = ", ".join(update.get("file", "?") for update in live.updates)
        lines.append(
            f"lost: the {len(live.updates)} updates applied to version {live.version} are not"
            f" in {target} ({files}); apply them again with provider-indexer update, oldest first"
        )
    return lines
