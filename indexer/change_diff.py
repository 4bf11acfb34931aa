"""What a full load or a rollback changes: the difference between the version served before it
and the one served after, as change records (core.change_records, DESIGN 5.10).

Every search document carries the digest of what it serves (core.search_fields.listing_digest),
in doc values. The two versions' digests are read by key (a scan of doc values, no source), and
only the providers whose digest differs, or that one version lacks, are read whole from both and
compared as the updates compare them (``provider_changes``). Plans are few: every plan of both
versions is compared (``plan_changes``). A reload of the same files changes no digest and
records nothing. A version of another document layout (``SCHEMA``) has no digests to compare:
nothing is recorded against it, and the report says so.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_scan

from core.change_log import Change
from core.change_records import listed, plan_changes, provider_changes
from core.documents import Plan
from core.index_contract import PLAN_FIELDS, PLAN_READ_SOURCE, SEARCH_FIELDS, IndexNames
from indexer import versions
from indexer.change_log import ChangeLog

PAGE = 10_000  # digests per scroll page
READ = 500  # providers read whole per request


@dataclass(frozen=True)
class Difference:
    """What a job told of the versions it moved between."""

    recorded: int
    skipped: str | None = None  # why nothing was compared


async def every_plan(es: AsyncElasticsearch, index: str) -> dict[str, Plan]:
    """Every plan of the index (a few hundred; not the published resources beside them)."""
    query = {
        "query": {"bool": {"must_not": {"exists": {"field": PLAN_FIELDS.resourceType}}}},
        "_source": PLAN_READ_SOURCE,
    }
    return {hit["_id"]: hit["_source"] async for hit in async_scan(es, index=index, query=query)}


async def digests(es: AsyncElasticsearch, index: str) -> dict[str, int]:
    """Each provider's digest, by key, read from doc values."""
    f = SEARCH_FIELDS
    found: dict[str, int] = {}
    page = await es.search(
        index=index,
        scroll="5m",
        size=PAGE,
        sort=["_doc"],
        source=False,
        stored_fields="_none_",
        docvalue_fields=[{"field": f.npi}, {"field": f.listingDigest}],
        filter_path="_scroll_id,hits.hits.fields",
    )
    scroll_id = page.get("_scroll_id")
    try:
        while hits := page.body.get("hits", {}).get("hits", []):
            for hit in hits:
                fields = hit["fields"]
                found[fields[f.npi][0]] = fields[f.listingDigest][0]
            page = await es.scroll(
                scroll_id=scroll_id, scroll="5m", filter_path="_scroll_id,hits.hits.fields"
            )
            scroll_id = page.get("_scroll_id", scroll_id)
    finally:
        if scroll_id:
            await es.options(ignore_status=404).clear_scroll(scroll_id=scroll_id)
    return found


def differing(before: Mapping[str, int], after: Mapping[str, int]) -> list[str]:
    """The keys one version lacks or whose digests differ, in order (pure)."""
    changed = {key for key, digest in after.items() if before.get(key) != digest}
    return sorted(changed | (before.keys() - after.keys()))


def _chunks(keys: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for start in range(0, len(keys), size):
        yield keys[start : start + size]


async def _sources(es: AsyncElasticsearch, index: str, keys: Sequence[str]) -> dict[str, Any]:
    found = await es.mget(index=index, ids=list(keys))
    return {doc["_id"]: doc["_source"] for doc in found["docs"] if doc.get("found")}


async def record_difference(
    es: AsyncElasticsearch,
    names: IndexNames,
    changes: ChangeLog,
    before: str | None,
    after: str,
    source: str,
    at: str,
) -> Difference:
    """The records of moving the served data from version ``before`` to ``after``."""
    if before is None:
        return Difference(0, "no version was served before")
    if before not in await versions.list_versions(es, names):
        return Difference(0, f"version {before} has another document layout: nothing compared")
    old, new = names.versioned("search", before), names.versioned("search", after)
    keys = differing(await digests(es, old), await digests(es, new))
    recorded = 0
    for chunk in _chunks(keys, READ):
        was, now = await _sources(es, old, chunk), await _sources(es, new, chunk)
        told: list[Change] = []
        for key in chunk:
            told += provider_changes(key, listed(was.get(key)), listed(now.get(key)), source)
        await changes.record(told, at)
        recorded += len(told)
    plans_before = await every_plan(es, names.versioned("plans", before))
    plans_after = await every_plan(es, names.versioned("plans", after))
    told = []
    for plan_id in sorted(plans_before.keys() | plans_after.keys()):
        told += plan_changes(plan_id, plans_before.get(plan_id), plans_after.get(plan_id), source)
    await changes.record(told, at)
    return Difference(recorded + len(told))
