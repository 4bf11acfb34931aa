"""Each version's listing digests kept beside it (the prefix's ``digests`` index), so that the
next full load compares its own with them without scanning a version of millions of documents
(indexer.change_diff).

A load writes its digests as it made them (16 bytes a provider, in parts of ``PART``) beside
its refresh and merge, and their header once its change records are committed: the last record
they precede (``through``). Every provider an update changes afterwards has a record after that
one (core.change_records), so a reader takes the stored digests and reads those providers' again
from the version. An update that did not finish may have written documents it had not recorded
yet: it leaves the header ``updating``, and the version is scanned instead, as it is when no
digests were stored or the records after ``through`` were pruned.
"""

from __future__ import annotations

import base64
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import numpy as np
from elasticsearch import AsyncElasticsearch, NotFoundError
from elasticsearch.helpers import async_bulk, async_scan

from core.change_log import DigestPartDoc
from core.index_contract import DIGEST_FIELDS, UNVERSIONED_SETTINGS, IndexNames
from indexer.digests import Digests

F = DIGEST_FIELDS
PART = 65_536  # providers a part holds: 1 MB of keys and digests
HEADER = -1  # the header's part number
_INT64 = np.dtype("<i8")


@dataclass(frozen=True)
class Stored:
    """A version's digests as its load wrote them, and the last change record they precede."""

    digests: Digests
    through: int


def _doc_id(version: str, part: int) -> str:
    return f"{version}.{part}"


async def ensure_index(es: AsyncElasticsearch, names: IndexNames) -> None:
    if await es.indices.exists(index=names.digests()):
        return
    await es.indices.create(
        index=names.digests(),
        settings=UNVERSIONED_SETTINGS,
        mappings=F.mapping(),
    )


def _part(
    version: str, number: int, digests: Digests, pairs: np.ndarray[Any, Any]
) -> DigestPartDoc:
    named = {str(code): digests.named[code] for code in pairs[0::2] if code < 0}
    return DigestPartDoc(
        version=version,
        part=number,
        pairs=base64.b64encode(pairs.astype(_INT64).tobytes()).decode(),
        named=named,
    )


async def write_parts(
    es: AsyncElasticsearch, names: IndexNames, version: str, digests: Digests
) -> int:
    """The version's digests written (not yet readable: ``write_header``); how many parts."""
    await ensure_index(es, names)
    pairs = digests.pairs()
    count = max(1, -(-len(digests) // PART))
    actions = (
        {
            "_index": names.digests(),
            "_id": _doc_id(version, number),
            "_source": _part(
                version, number, digests, pairs[2 * PART * number : 2 * PART * (number + 1)]
            ),
        }
        for number in range(count)
    )
    await async_bulk(es, actions, chunk_size=4, max_retries=3)
    return count


async def write_header(
    es: AsyncElasticsearch, names: IndexNames, version: str, parts: int, through: int
) -> None:
    """The version's parts readable, up to the change record numbered ``through``."""
    header = DigestPartDoc(
        version=version, part=HEADER, parts=parts, through=through, updating=False
    )
    await es.index(index=names.digests(), id=_doc_id(version, HEADER), document=header)


async def _header(es: AsyncElasticsearch, names: IndexNames, version: str) -> DigestPartDoc | None:
    try:
        found = await es.get(index=names.digests(), id=_doc_id(version, HEADER))
    except NotFoundError:
        return None
    header: DigestPartDoc = found["_source"]
    return header


async def read(es: AsyncElasticsearch, names: IndexNames, version: str) -> Stored | None:
    """The version's stored digests; None when there are none to trust (see above)."""
    header = await _header(es, names, version)
    if header is None or header.get("updating", True) or "through" not in header:
        return None
    ids = [_doc_id(version, number) for number in range(header.get("parts", 0))]
    found = await es.mget(index=names.digests(), ids=ids)
    digests = Digests()
    for doc in found["docs"]:
        if not doc.get("found"):
            return None
        part: DigestPartDoc = doc["_source"]
        pairs = np.frombuffer(base64.b64decode(part.get("pairs", "")), dtype=_INT64)
        named = {int(code): key for code, key in part.get("named", {}).items()}
        digests.extend_codes(pairs.astype(np.int64), named)
    return Stored(digests, header["through"])


async def update_begins(es: AsyncElasticsearch, names: IndexNames, version: str) -> bool:
    """An update is writing the version: its stored digests are not read until it finishes
    (``update_ends``); False when they were not to be read anyway."""
    header = await _header(es, names, version)
    if header is None or header.get("updating", True):
        return False
    await es.index(
        index=names.digests(), id=_doc_id(version, HEADER), document={**header, "updating": True}
    )
    return True


async def update_ends(es: AsyncElasticsearch, names: IndexNames, version: str, began: bool) -> None:
    """The update that ``update_begins`` told of finished: every change it made is recorded."""
    header = await _header(es, names, version) if began else None
    if header is not None:
        await es.index(
            index=names.digests(),
            id=_doc_id(version, HEADER),
            document={**header, "updating": False},
        )


async def keep_only(es: AsyncElasticsearch, names: IndexNames, versions: Collection[str]) -> None:
    """The digests of every version but ``versions`` deleted (those pruned, or of a load that
    failed)."""
    if not await es.indices.exists(index=names.digests()):
        return
    index = names.digests()
    await es.indices.refresh(index=index)
    query = {"bool": {"must_not": {"terms": {F.version: list(versions)}}}}
    found = async_scan(es, index=index, query={"query": query, "_source": False}, size=1000)
    actions = ({"_op_type": "delete", "_index": index, "_id": hit["_id"]} async for hit in found)
    await async_bulk(es, actions, chunk_size=1000, raise_on_error=False)
