"""Providers' listing digests (core.search_fields.listing_digest) by key, as a full load or a
rollback compares two versions by them (indexer.change_diff); and making them again from what a
version's search documents store (a version whose load kept none, or providers updated since:
indexer.digest_store)."""

from __future__ import annotations

from array import array
from collections.abc import Collection, Iterable
from hashlib import blake2b
from typing import Any

import numpy as np
from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_scan
from numpy.typing import NDArray

from core.index_contract import SEARCH_FIELDS
from core.search_fields import listing_digest
from indexer.write.bulk import chunked

PAGE = 2_000  # search documents read per request


def key_code(key: str) -> int:
    """A key as a number: an NPI as itself, any other key (a payer's id) as a negative code."""
    if len(key) == 10 and key.isdigit():
        return int(key)
    # str(): a document Elasticsearch will refuse may hold anything (the load counts it).
    named = str(key).encode()
    return -1 - int.from_bytes(blake2b(named, digest_size=7).digest(), "big")


class Digests:
    """Providers' listing digests by key, 16 bytes a provider (a 9M version: 144 MB), keys as
    ``key_code`` makes them (the names of negative codes kept to tell them back)."""

    def __init__(self) -> None:
        self._keys = array("q")
        self._digests = array("q")
        self.named: dict[int, str] = {}

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
        code = key_code(key)
        if code < 0:
            self.named[code] = str(key)
        self._keys.append(code)
        self._digests.append(digest)

    def extend_codes(self, pairs: NDArray[np.int64], named: dict[int, str]) -> None:
        """Keys and digests as ``pairs`` holds them (key, digest, key, ...)."""
        self._keys.extend(pairs[0::2].tolist())
        self._digests.extend(pairs[1::2].tolist())
        self.named.update(named)

    def pairs(self) -> NDArray[np.int64]:
        """Keys and digests interleaved (key, digest, key, ...), in the order added."""
        both = np.empty(2 * len(self._keys), dtype=np.int64)
        both[0::2] = np.frombuffer(self._keys, dtype=np.int64)
        both[1::2] = np.frombuffer(self._digests, dtype=np.int64)
        return both

    def without(self, keys: Collection[str]) -> Digests:
        """These digests but those of ``keys``."""
        codes = np.frombuffer(self._keys, dtype=np.int64)
        kept = ~np.isin(codes, np.fromiter(map(key_code, keys), dtype=np.int64, count=len(keys)))
        left = Digests()
        left._keys.frombytes(codes[kept].tobytes())
        left._digests.frombytes(np.frombuffer(self._digests, dtype=np.int64)[kept].tobytes())
        left.named = dict(self.named)
        return left

    def key(self, code: int) -> str:
        return f"{code:010d}" if code >= 0 else self.named[code]

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


def _add_sources(found: Digests, hits: list[Any]) -> None:
    found.extend(
        [hit["_source"][SEARCH_FIELDS.npi] for hit in hits],
        [listing_digest(hit["_source"]) for hit in hits],
    )


async def scan_digests(es: AsyncElasticsearch, index: str) -> Digests:
    """Each provider's digest in a version's search index, made from what each document
    stores (a scan of every source: for a version whose load stored none, indexer.digest_store)."""
    found = Digests()
    hits: list[Any] = []
    async for hit in async_scan(es, index=index, size=PAGE):
        hits.append(hit)
        if len(hits) == PAGE:
            _add_sources(found, hits)
            hits = []
    _add_sources(found, hits)
    return found


async def digests_of(es: AsyncElasticsearch, index: str, keys: Iterable[str]) -> Digests:
    """The digests of those of ``keys`` the index holds (a key it lacks is left out)."""
    found = Digests()
    for chunk in chunked(keys, PAGE):
        got = await es.mget(index=index, ids=chunk)
        _add_sources(found, [doc for doc in got["docs"] if doc.get("found")])
    return found
