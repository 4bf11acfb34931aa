"""Loading into a real Elasticsearch: counts, field fidelity, atomic alias swap, failure safety."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path

import pytest
from elasticsearch import AsyncElasticsearch

from core.es_client import make_client
from core.index_contract import INDEX_KINDS, SCHEMA, IndexKind, IndexNames
from core.lookup_answers import stored_locations
from indexer import versions
from indexer.load.run import LoadOptions, LoadReport, SourceFiles, load
from tests.conftest import SampleCopy
from tests.indexer.expected import csv_dicts, expected_locations
from tests.indexer.holding_relay import HANG_S, HoldingRelay
from tests.source_rows import active_rows, nppes_rows, zip_centroid

Loaded = tuple[IndexNames, LoadReport]


async def test_sample_counts_equal_the_source_files(
    es: AsyncElasticsearch, loaded_sample: Loaded, sample_sources: SourceFiles, sample_dir: Path
) -> None:
    names, report = loaded_sample
    source = nppes_rows(sample_sources.nppes_file)
    active = active_rows(sample_sources.nppes_file)
    assert report.rows_read == len(source)
    assert report.deactivated == len(source) - len(active)
    assert report.indexed == len(active) and not report.rejected
    assert report.accounted
    assert sample_sources.plans and sample_sources.coverage
    plans = {r["bid_id"] for r in csv_dicts(sample_sources.plans)}
    expected: dict[IndexKind, int] = {
        "providers": len(active),
        "search": len(active),
        "coverage": len(csv_dicts(sample_sources.coverage[0])),
        "plans": len(plans),
    }
    for kind, count in expected.items():
        assert (await es.count(index=names.alias(kind)))["count"] == count, kind
        assert report.documents[kind] == count
    assert report.locations == sum(
        expected_locations(sample_dir, sample_sources.nppes_file).values()
    )
    assert report.source_rows[sample_sources.nppes_file.name] == len(source)
    assert report.not_geocoded == 0
    # The only rows left out: county rows of the Plan Finder's "SC_dir" scrape whose county is
    # in none of the plan's states (tests/indexer/test_plan_offers.py counts them).
    assert {reason for _, reason in report.source_rejected} == {"county_not_in_plan_states"}


async def test_deactivated_npis_are_not_served(
    es: AsyncElasticsearch, loaded_sample: Loaded, sample_sources: SourceFiles
) -> None:
    names, _ = loaded_sample
    active = {row["NPI"] for row in active_rows(sample_sources.nppes_file)}
    inactive = [
        row["NPI"] for row in nppes_rows(sample_sources.nppes_file) if row["NPI"] not in active
    ]
    assert inactive
    found = await es.mget(index=names.alias("providers"), ids=inactive)
    assert not any(doc["found"] for doc in found["docs"])


async def test_nppes_location_documents_follow_the_source_address(
    es: AsyncElasticsearch, loaded_sample: Loaded, sample_sources: SourceFiles
) -> None:
    names, _ = loaded_sample
    rows = active_rows(sample_sources.nppes_file)[:200]
    practice = "Provider Business Practice Location Address"
    found = await es.mget(index=names.alias("providers"), ids=[row["NPI"] for row in rows])
    for row, doc in zip(rows, found["docs"], strict=True):
        stored = stored_locations(doc["_source"])
        [location] = [entry for entry in stored if entry["source"] == "nppes"]
        address = location["address"]
        assert address["line1"] == row["Provider First Line Business Practice Location Address"]
        assert address["city"] == row[f"{practice} City Name"]
        assert address["state"] == row[f"{practice} State Name"]
        assert (address["zip"] or "").replace("-", "") == row[f"{practice} Postal Code"]
        place = zip_centroid(row[f"{practice} Postal Code"])  # the package, read here
        lat, lng, county = place or (None, None, None)
        assert (address["lat"], address["lng"], address["county"]) == (lat, lng, county)
        assert location["geocodePrecision"] == ("zip5" if place else None)


def _write_nppes(path: Path, rows: list[dict[str, str]]) -> Path:
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]), quoting=csv.QUOTE_ALL)
        writer.writeheader()
        writer.writerows(rows)
    return path


async def test_a_location_without_a_geocode_is_kept_but_not_in_geo_search(
    es: AsyncElasticsearch, index_names: IndexNames, sample_sources: SourceFiles, tmp_path: Path
) -> None:
    first, second = active_rows(sample_sources.nppes_file)[:2]
    postal = "Provider Business Practice Location Address Postal Code"
    nowhere = {**second, postal: "00000"}  # a US-shaped ZIP that does not exist
    path = _write_nppes(tmp_path / "npidata_pfile_nowhere.csv", [first, nowhere])
    sources = SourceFiles(nppes=path, nucc=sample_sources.nucc)
    report = await load(es, sources, LoadOptions(names=index_names))
    assert report.not_geocoded == 1
    lookup = await es.get(index=index_names.alias("providers"), id=nowhere["NPI"])
    assert stored_locations(lookup["_source"])[0]["geocodePrecision"] is None
    for npi, located in ((first["NPI"], True), (nowhere["NPI"], False)):
        on_the_map = {"bool": {"filter": [{"term": {"npi": npi}}, {"exists": {"field": "points"}}]}}
        found = await es.count(index=index_names.alias("search"), query=on_the_map)
        assert found["count"] == int(located), npi


def _alias_change(method: str, path: str) -> bool:
    return method == "POST" and path == "/_aliases"


async def test_second_load_swaps_every_alias_atomically(
    es: AsyncElasticsearch,
    es_url: str,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    sample_copy: SampleCopy,
) -> None:
    """The load changes the aliases in one request (Elasticsearch applies one ``_aliases``
    request atomically), made once the new version is complete: held in a relay at that
    request, the load has every new index written and readers still see the whole first
    version; let go, every alias names the new version."""
    options = LoadOptions(names=index_names)
    first = sample_copy.report  # served: the session's load, cloned
    relay = HoldingRelay(es_url, _alias_change)
    await relay.start()
    relayed = make_client(relay.url, request_timeout=HANG_S)
    try:
        loading = asyncio.create_task(load(relayed, sample_sources, options))
        async with asyncio.timeout(HANG_S):  # a guard against a hang, not a measure of speed
            await asyncio.wait(
                {loading, asyncio.create_task(relay.held.wait())},
                return_when=asyncio.FIRST_COMPLETED,
            )
        assert relay.held.is_set() and not loading.done(), loading
        [new] = [v for v in await versions.scan(es, index_names) if v != first.version]
        served = await versions.scan(es, index_names)
        assert served[new].complete  # written, verified and finished before the swap
        for kind in INDEX_KINDS:
            alias = index_names.alias(kind)
            assert list(await es.indices.get_alias(name=alias)) == [
                index_names.versioned(kind, first.version)
            ]
            assert (await es.count(index=alias))["count"] == first.documents[kind], kind
        [held] = relay.held_bodies
        actions = json.loads(held)["actions"]
        assert actions == [
            change
            for kind in INDEX_KINDS
            for change in (
                {"remove": {"index": index_names.pattern(kind), "alias": index_names.alias(kind)}},
                {
                    "add": {
                        "index": index_names.versioned(kind, new),
                        "alias": index_names.alias(kind),
                    }
                },
            )
        ]
        relay.release()
        second = await loading
    finally:
        await relayed.close()
        await relay.close()

    assert second.version == new and second.version > first.version
    assert relay.forwarded_bodies == [held]  # the one alias change of the load
    for kind in INDEX_KINDS:
        found = await es.indices.get_alias(name=index_names.alias(kind))
        assert list(found) == [index_names.versioned(kind, second.version)]
    assert await versions.list_versions(es, index_names) == [first.version, second.version]

    assert await versions.rollback(es, index_names) == first.version
    assert await versions.current_version(es, index_names) == first.version


async def test_old_versions_are_pruned(
    es: AsyncElasticsearch,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    sample_copy: SampleCopy,
) -> None:
    options = LoadOptions(names=index_names, keep_versions=2)
    # The first of three versions: the session's load, cloned; then two loads.
    reports = [sample_copy.report] + [await load(es, sample_sources, options) for _ in range(2)]
    assert await versions.list_versions(es, index_names) == [r.version for r in reports[1:]]


async def test_a_bad_file_leaves_the_aliases_and_removes_partial_indices(
    es: AsyncElasticsearch,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    sample_copy: SampleCopy,
    tmp_path: Path,
) -> None:
    good = sample_copy.report  # served: the session's load, cloned
    bad = tmp_path / "npidata_pfile_bad.csv"
    bad.write_text("just,some,columns\n1,2,3\n")
    with pytest.raises(ValueError, match="not an NPPES"):
        await load(
            es, SourceFiles(nppes=bad, nucc=sample_sources.nucc), LoadOptions(names=index_names)
        )
    assert await versions.current_version(es, index_names) == good.version
    assert await versions.list_versions(es, index_names) == [good.version]
    versioned = ",".join(index_names.pattern(kind) for kind in INDEX_KINDS)
    assert len(await es.indices.get(index=versioned)) == len(INDEX_KINDS)


def _bulk(_method: str, path: str) -> bool:
    return path.endswith("/_bulk")


async def test_a_load_cancelled_midway_leaves_the_aliases(
    es: AsyncElasticsearch,
    es_url: str,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    sample_copy: SampleCopy,
) -> None:
    good = sample_copy.report  # served: the session's load, cloned
    relay = HoldingRelay(es_url, _bulk, let_through=3)  # one at a time: three answered
    await relay.start()
    relayed = make_client(relay.url, request_timeout=HANG_S)
    try:
        options = LoadOptions(names=index_names, chunk_size=100, concurrency=1)
        task = asyncio.create_task(load(relayed, sample_sources, options))
        async with asyncio.timeout(HANG_S):  # a guard against a hang, not a measure of speed
            await asyncio.wait(
                {task, asyncio.create_task(relay.held.wait())},
                return_when=asyncio.FIRST_COMPLETED,
            )
        assert relay.held.is_set() and not task.done(), task  # held with documents written
        task.cancel()
        relay.release()  # the held request completes, then the clean-up runs
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        await relayed.close()
        await relay.close()
    assert len(relay.forwarded_bodies) == 4  # the held one finished, none after the cancel
    assert await versions.current_version(es, index_names) == good.version
    assert list(await versions.scan(es, index_names)) == [good.version]


async def test_a_loaded_version_is_merged_into_one_segment_and_served_with_normal_settings(
    es: AsyncElasticsearch, loaded_sample: Loaded
) -> None:
    names, _ = loaded_sample
    for kind in ("search", "providers"):
        segments = await es.indices.segments(index=names.alias(kind))
        [index] = segments["indices"].values()
        [[shard]] = index["shards"].values()
        assert shard["num_search_segments"] == 1, kind
        settings = await es.indices.get_settings(index=names.alias(kind), flat_settings=True)
        [served] = settings.values()
        assert "index.refresh_interval" not in served["settings"]  # back to the default
        assert served["settings"].get("index.translog.durability", "request") == "request"


async def test_a_version_in_another_document_layout_is_never_a_rollback_target(
    es: AsyncElasticsearch,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    sample_copy: SampleCopy,
) -> None:
    old = sample_copy.report  # the session's load, cloned
    new = await load(es, sample_sources, LoadOptions(names=index_names))
    # The old version as a release with another layout would have written it.
    indices = [index_names.versioned(kind, old.version) for kind in INDEX_KINDS]
    meta = {"pd": {"version": old.version, "state": "complete", "schema": SCHEMA - 1}}
    await es.indices.put_mapping(index=",".join(indices), meta=meta)
    assert await versions.list_versions(es, index_names) == [new.version]
    with pytest.raises(LookupError):
        await versions.rollback(es, index_names)
    assert await versions.current_version(es, index_names) == new.version
