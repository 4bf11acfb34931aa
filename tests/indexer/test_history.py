"""The load's force merge drops the whole-document copy Elasticsearch keeps while the search
index's source leaves terms out, on a real Elasticsearch: the sample's search documents written
to two indices with the search mapping, one merged at once (the copy stays: the control), one
merged after ``release_history`` (the copy is gone); the terms stay searchable, not stored."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from elasticsearch import AsyncElasticsearch

from core.documents import SearchDoc
from core.index_contract import MAPPINGS, IndexNames, index_settings
from indexer.assembly.documents import build_documents
from indexer.history import release_history
from indexer.sources.discovery import SourceFiles
from indexer.sources.nppes import NppesRecord, read_nppes
from indexer.sources.nucc import read_nucc

RECOVERY_SOURCE = "_recovery_source"


async def _write(
    es: AsyncElasticsearch, index: str, documents: list[tuple[str, SearchDoc]]
) -> None:
    await es.indices.create(
        index=index, settings=index_settings("search"), mappings=MAPPINGS["search"]
    )
    for first in range(0, len(documents), 100):  # a segment each: the merge has work to do
        operations: list[Any] = []
        for npi, doc in documents[first : first + 100]:
            operations += [{"index": {"_index": index, "_id": npi}}, doc]
        answer = await es.bulk(operations=operations, refresh=True)
        assert not answer["errors"]


async def _copy_bytes(es: AsyncElasticsearch, index: str) -> int:
    usage = await es.indices.disk_usage(index=index, run_expensive_tasks=True)
    field = usage[index]["fields"].get(RECOVERY_SOURCE)
    return int(field["total_in_bytes"]) if field else 0


@pytest.mark.filterwarnings("ignore::elasticsearch.exceptions.GeneralAvailabilityWarning")
async def test_a_merge_after_the_history_is_released_drops_the_whole_document_copy(
    es: AsyncElasticsearch, index_names: IndexNames, sample_sources: SourceFiles
) -> None:
    nucc = read_nucc(sample_sources.nucc)
    records = (r for r in read_nppes(sample_sources.nppes_file) if isinstance(r, NppesRecord))
    documents = [
        (record.npi, build_documents(record, nucc).search)
        for record in itertools.islice(records, 500)
    ]
    family = next(doc["familyNames"][0] for _, doc in documents if doc["familyNames"])
    merged_at_once, released = (f"{index_names.prefix}-at-once", f"{index_names.prefix}-released")
    for index in (merged_at_once, released):
        await _write(es, index, documents)

    await es.indices.flush(index=merged_at_once)
    await es.indices.forcemerge(index=merged_at_once, max_num_segments=1)
    await release_history(es, [released], min_documents=0)
    await es.indices.forcemerge(index=released, max_num_segments=1)

    assert await _copy_bytes(es, merged_at_once) > 0  # the control: merged too early
    assert await _copy_bytes(es, released) == 0
    found = await es.search(index=released, query={"term": {"familyNames": family}})
    hits = found["hits"]["hits"]
    assert hits and all(family in dict(documents)[hit["_id"]]["familyNames"] for hit in hits)
    assert all("familyNames" not in hit["_source"] for hit in hits)
