"""The search index's stored locations, read back, are the lookup index's (which stores each
location whole): the search source's shorter form loses nothing (core.search_fields)."""

from __future__ import annotations

from typing import Any

from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_scan

from core.index_contract import IndexNames
from core.lookup_answers import stored_locations
from core.search_fields import locations_of
from indexer.load.run import LoadReport


async def _sources(es: AsyncElasticsearch, index: str) -> dict[str, dict[str, Any]]:
    return {
        hit["_id"]: hit["_source"]
        async for hit in async_scan(es, index=index, query={"query": {"match_all": {}}})
    }


async def _same_locations(es: AsyncElasticsearch, names: IndexNames) -> tuple[int, int]:
    """Asserts every provider's locations agree; answers (locations, stored without a
    confidence)."""
    search = await _sources(es, names.alias("search"))
    lookup = await _sources(es, names.alias("providers"))
    assert search.keys() == lookup.keys()
    located = shortened = 0
    for doc_id, source in search.items():
        whole = sorted(stored_locations(lookup[doc_id]), key=lambda place: place["id"])  # type: ignore[arg-type]
        assert sorted(locations_of(source), key=lambda place: place["id"]) == whole, doc_id
        located += len(whole)
        shortened += sum("confidence" not in place for place in source["locations"])
    return located, shortened


async def test_the_sample_search_locations_read_back_whole(
    es: AsyncElasticsearch, loaded_sample: tuple[IndexNames, LoadReport]
) -> None:
    located, shortened = await _same_locations(es, loaded_sample[0])
    # Most of the sample's locations only NPPES lists; Doctors & Clinicians confirms others.
    assert 0 < shortened < located


async def test_directory_listings_read_back_whole(
    es: AsyncElasticsearch, plan_net_sample: IndexNames
) -> None:
    located, shortened = await _same_locations(es, plan_net_sample)
    assert 0 < shortened < located
