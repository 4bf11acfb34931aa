"""What a full load or a rollback changes: the difference between the version served before it
and the one served after, as change records (core.change_records, DESIGN 5.10).

Every search document carries the digest of what it serves (core.search_fields.listing_digest),
in doc values. The version served before is read by key (a scan of doc values, no source; a
load reads it beside its own refresh and merge), the new one as its load writes it
(``Digests``, 16 bytes a provider; a rollback reads both), and only the providers whose digest
differs, or that one version lacks, are read whole from both and compared as the updates
compare them (``provider_changes``). Plans are few: every plan of both
versions is compared (``plan_changes``). A reload of the same files changes no digest and
records nothing. A version of another document layout (``SCHEMA``) has no digests to compare:
nothing is recorded against it, and the report says so.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from hashlib import blake2b
from typing import Any

import numpy as np
from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_scan
from numpy.typing import NDArray

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


class Digests:
    """Providers' listing digests by key, 16 bytes a provider (a 9M version: 144 MB): an NPI
    key as its number, any other key (an id) as a negative code it is looked up by."""

    def __init__(self) -> None:
        self._keys = array("q")
        self._digests = array("q")
        self._named: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._keys)

    def extend(self, keys: list[str], digests: list[int]) -> None:
        """Many at once: NPI keys (all a scan of a version holds but a payer's own ids) turned
        into numbers in one pass."""
        if all(len(key) == 10 and key.isdigit() for key in keys):
            self._keys.extend(map(int, keys))
            self._digests.extend(digests)
            return
        for key, digest in zip(keys, digests, strict=True):
            self.add(key, digest)

    def add(self, key: str, digest: int) -> None:
        if len(key) == 10 and key.isdigit():
            self._keys.append(int(key))
        else:
            # str(): a document Elasticsearch will refuse may hold anything (the load counts it).
            named = str(key).encode()
            code = -1 - int.from_bytes(blake2b(named, digest_size=7).digest(), "big")
            self._named[code] = str(key)
            self._keys.append(code)
        self._digests.append(digest)

    def key(self, code: int) -> str:
        return f"{code:010d}" if code >= 0 else self._named[code]

    def sorted(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        keys = np.frombuffer(self._keys, dtype=np.int64)
        order = np.argsort(keys, kind="stable")
        return keys[order], np.frombuffer(self._digests, dtype=np.int64)[order]


def differing(before: Digests, after: Digests) -> list[str]:
    """The keys one version lacks or whose digests differ, in key order (pure)."""
    old_keys, old_digests = before.sorted()
    new_keys, new_digests = after.sorted()
    common, at_old, at_new = np.intersect1d(
        old_keys, new_keys, assume_unique=True, return_indices=True
    )
    changed = common[old_digests[at_old] != new_digests[at_new]]
    gone = np.setdiff1d(old_keys, new_keys, assume_unique=True)
    added = np.setdiff1d(new_keys, old_keys, assume_unique=True)
    keys = [after.key(int(code)) for code in np.concatenate([changed, added])]
    keys += [before.key(int(code)) for code in gone]
    return sorted(keys)


async def digests(es: AsyncElasticsearch, index: str) -> Digests:
    """Each provider's digest, read from doc values (no source)."""
    f = SEARCH_FIELDS
    found = Digests()
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
    npi, digest = f.npi, f.listingDigest
    try:
        while hits := page.body.get("hits", {}).get("hits", []):
            found.extend(
                [hit["fields"][npi][0] for hit in hits],
                [hit["fields"][digest][0] for hit in hits],
            )
            page = await es.scroll(
                scroll_id=scroll_id, scroll="5m", filter_path="_scroll_id,hits.hits.fields"
            )
            scroll_id = page.get("_scroll_id", scroll_id)
    finally:
        if scroll_id:
            await es.options(ignore_status=404).clear_scroll(scroll_id=scroll_id)
    return found


def _chunks(keys: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for start in range(0, len(keys), size):
        yield keys[start : start + size]


async def _sources(es: AsyncElasticsearch, index: str, keys: Sequence[str]) -> dict[str, Any]:
    found = await es.mget(index=index, ids=list(keys))
    return {doc["_id"]: doc["_source"] for doc in found["docs"] if doc.get("found")}


@dataclass(frozen=True)
class Served:
    """The version served before a job, as read for comparing: its digests, or why none."""

    version: str | None
    digests: Digests | None
    skipped: str | None = None


async def read_served(es: AsyncElasticsearch, names: IndexNames, version: str | None) -> Served:
    """``version``'s digests (a scan of its search index: a load reads them beside its own
    refresh and merge, which leave a core idle), or why there is nothing to compare."""
    if version is None:
        return Served(None, None, "no version was served before")
    if version not in await versions.list_versions(es, names):
        return Served(
            version, None, f"version {version} has another document layout: nothing compared"
        )
    return Served(version, await digests(es, names.versioned("search", version)))


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
    now_digests = written if written is not None else await digests(es, new)
    keys = differing(served.digests, now_digests)
    recorded = 0
    for chunk in _chunks(keys, READ):
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
