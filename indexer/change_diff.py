"""What a full load or a rollback changes: the difference between the version served before it
and the one served after, as change records (core.change_records, DESIGN 5.10).

Each provider is compared by the digest of what its search document serves
(core.search_fields.listing_digest). The version served before is read by key: as its load
stored them, with those of the providers updates changed since made again (indexer.digest_store),
else made from every document (a load reads them beside its own refresh and merge); the new one
as its load writes it (indexer.digests, 16 bytes a provider; a rollback reads both). Only the
providers whose digest differs, or that one version lacks, are read whole from both and compared
as the updates compare them (``provider_changes``). Plans are few: every plan of both versions
is compared (``plan_changes``). A reload of the same files changes no digest and records
nothing. A version of another document layout (``SCHEMA``) has no digests to compare: nothing is
recorded against it, and the report says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_scan

from core.change_log import Change
from core.change_records import listed, plan_changes, provider_changes
from core.documents import Plan
from core.index_contract import PLAN_FIELDS, PLAN_READ_SOURCE, IndexNames
from indexer import digest_store, versions
from indexer.change_log import ChangeLog, keys_recorded_after
from indexer.digests import Digests, differing, digests_of, scan_digests
from indexer.write.bulk import chunked

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


async def version_digests(
    es: AsyncElasticsearch, names: IndexNames, version: str
) -> tuple[Digests, str]:
    """The version's digests as it serves them, and how they were read: ``stored`` (as its load
    wrote them, with those of the providers records name since read again: indexer.digest_store)
    or ``scanned`` (every document's)."""
    index = names.versioned("search", version)
    stored = await digest_store.read(es, names, version)
    touched = None if stored is None else await keys_recorded_after(es, names, stored.through)
    if stored is None or touched is None:
        return await scan_digests(es, index), "scanned"
    digests = stored.digests.without(touched) if touched else stored.digests
    if touched:
        again = await digests_of(es, index, touched)
        digests.extend_codes(again.pairs(), again.named)
    return digests, "stored"


async def _sources(es: AsyncElasticsearch, index: str, keys: list[str]) -> dict[str, Any]:
    found = await es.mget(index=index, ids=keys)
    return {doc["_id"]: doc["_source"] for doc in found["docs"] if doc.get("found")}


@dataclass(frozen=True)
class Served:
    """The version served before a job, as read for comparing: its digests, or why none."""

    version: str | None
    digests: Digests | None
    skipped: str | None = None
    read: str | None = None  # how its digests were read (``version_digests``)


async def read_served(es: AsyncElasticsearch, names: IndexNames, version: str | None) -> Served:
    """``version``'s digests (a load reads them beside its own refresh and merge, which leave a
    core idle), or why there is nothing to compare."""
    if version is None:
        return Served(None, None, "no version was served before")
    if version not in await versions.list_versions(es, names):
        return Served(
            version, None, f"version {version} has another document layout: nothing compared"
        )
    digests, read = await version_digests(es, names, version)
    return Served(version, digests, read=read)


async def record_difference(
    es: AsyncElasticsearch,
    names: IndexNames,
    changes: ChangeLog,
    served: Served,
    after: str,
    source: str,
    at: str,
    written: Digests | None = None,
) -> Difference:
    """The records of moving the served data from ``served`` to version ``after``;
    ``written``: the digests of ``after`` as its load wrote them (else they are read)."""
    if served.digests is None or served.version is None:
        return Difference(0, served.skipped)
    old, new = names.versioned("search", served.version), names.versioned("search", after)
    now_digests = written if written is not None else (await version_digests(es, names, after))[0]
    keys = differing(served.digests, now_digests)
    recorded = 0
    for chunk in chunked(keys, READ):
        was, now = await _sources(es, old, chunk), await _sources(es, new, chunk)
        told: list[Change] = []
        for key in chunk:
            told += provider_changes(key, listed(was.get(key)), listed(now.get(key)), source)
        await changes.record(told, at)
        recorded += len(told)
    plans_before = await every_plan(es, names.versioned("plans", served.version))
    plans_after = await every_plan(es, names.versioned("plans", after))
    told = []
    for plan_id in sorted(plans_before.keys() | plans_after.keys()):
        told += plan_changes(plan_id, plans_before.get(plan_id), plans_after.get(plan_id), source)
    await changes.record(told, at)
    return Difference(recorded + len(told))
