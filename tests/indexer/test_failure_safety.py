"""A load that fails, is interrupted or is killed never touches what is being served."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import INDEX_KINDS, IndexNames
from indexer import orphans, versions
from indexer.assembly import documents
from indexer.load import pipeline
from indexer.load.run import LoadError, LoadOptions, SourceFiles, load
from tests.conftest import SampleCopy
from tests.indexer.conftest import indexer_process
from tests.indexer.holding_relay import HANG_S, HoldingRelay, until_held
from tests.source_rows import active_rows, nppes_rows


def _bulk(_method: str, path: str) -> bool:
    return path.endswith("/_bulk")


@pytest.fixture
async def relay(es_url: str) -> AsyncIterator[HoldingRelay]:
    """In front of the session's node: a load's bulk requests after the first three wait."""
    relay = HoldingRelay(es_url, _bulk, let_through=3)
    await relay.start()
    yield relay
    await relay.close()


async def _held_load(
    es: AsyncElasticsearch, relay: HoldingRelay, names: IndexNames, known: int
) -> tuple[subprocess.Popen[str], str]:
    """A CLI load through ``relay`` in a child process, held at its fourth bulk request (one at
    a time: three were answered): its new indices exist and hold documents, and it cannot
    finish."""
    process = indexer_process(
        relay.url, names, "load", "--source-dir", "data/sample", "--chunk-size", "100",
        "--concurrency", "1",
    )  # fmt: skip
    await until_held(relay, process)
    found = list(await versions.scan(es, names))
    assert len(found) == known + 1 and process.poll() is None
    version = found[-1]  # versions are named by their start: the newest last
    indices = ",".join(names.versioned(kind, version) for kind in INDEX_KINDS)
    stats = await es.indices.stats(index=indices, metric="indexing")
    assert stats["_all"]["primaries"]["indexing"]["index_total"] > 0  # three bulks answered
    return process, version


async def test_sigterm_midway_leaves_the_aliases_and_removes_the_new_indices(
    es: AsyncElasticsearch,
    relay: HoldingRelay,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    sample_copy: SampleCopy,
) -> None:
    good = sample_copy.report  # the served version: the session's load, cloned
    process, _ = await _held_load(es, relay, index_names, known=1)
    process.send_signal(signal.SIGTERM)
    relay.release()  # the held request completes, then the clean-up runs
    _, stderr = await asyncio.to_thread(process.communicate, timeout=HANG_S)
    assert process.returncode == 130, stderr
    assert "partial indices removed, aliases unchanged" in stderr
    assert await versions.current_version(es, index_names) == good.version
    assert list(await versions.scan(es, index_names)) == [good.version]


async def test_after_sigkill_the_next_load_removes_the_orphaned_version(
    es: AsyncElasticsearch,
    relay: HoldingRelay,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    sample_copy: SampleCopy,
) -> None:
    good = sample_copy.report  # the served version: the session's load, cloned
    process, killed = await _held_load(es, relay, index_names, known=1)
    process.kill()
    await asyncio.to_thread(process.communicate, timeout=HANG_S)
    assert await versions.current_version(es, index_names) == good.version
    assert killed in await versions.scan(es, index_names)  # left behind: no clean-up possible
    assert await versions.list_versions(es, index_names) == [good.version]  # not a target

    nxt = await load(es, sample_sources, LoadOptions(names=index_names))
    assert nxt.orphans_removed == [killed]
    assert list(await versions.scan(es, index_names)) == [good.version, nxt.version]
    assert await versions.rollback(es, index_names) == good.version


async def test_orphan_clean_up_spares_live_loads_and_rollback_targets(
    es: AsyncElasticsearch, es_url: str, index_names: IndexNames, sample_copy: SampleCopy
) -> None:
    first = sample_copy.report  # served: the session's load, cloned
    finished = indexer_process(es_url, index_names, "load", "--source-dir", "data/sample")
    await asyncio.to_thread(finished.communicate, timeout=HANG_S)
    second = await versions.current_version(es, index_names)
    assert finished.returncode == 0 and second != first.version
    assert await versions.rollback(es, index_names) == first.version
    # Being written by this (live) process: kept.
    live = versions.new_version()
    await versions.create_version(es, index_names, live, shards=1)
    # From another host, started long ago: presumed dead.
    stale = "20200101t000000000000"
    indices = await versions.create_version(es, index_names, stale, shards=1)
    await es.indices.put_mapping(
        index=",".join(indices.values()), meta={"pd": {"state": "loading", "owner": "elsewhere:1"}}
    )
    removed = await orphans.remove_orphans(es, index_names)
    # The version rolled back from is newer than the served one and its loader is gone.
    assert sorted(removed) == [stale, second]
    assert list(await versions.scan(es, index_names)) == [first.version, live]


async def test_bulk_errors_over_the_threshold_abort_and_are_written_with_row_numbers(
    es: AsyncElasticsearch,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sample_copy: SampleCopy,
) -> None:
    good = sample_copy.report
    build = documents.build_documents

    source = nppes_rows(sample_sources.nppes_file)
    row = 1 + source.index(active_rows(sample_sources.nppes_file)[5])  # 1-based data row number

    def corrupt_one(record: Any, *args: Any) -> documents.ProviderDocuments:
        docs = build(record, *args)
        if record.row_number == row:  # an object where the mapping has a keyword: refused
            docs.search["npi"] = {"not": "a keyword"}  # type: ignore[typeddict-item]
        return docs

    monkeypatch.setattr(pipeline, "build_documents", corrupt_one)
    rejects = tmp_path / "rejects.csv"
    with pytest.raises(LoadError, match="1 documents failed"):
        await load(es, sample_sources, LoadOptions(names=index_names, reject_file=rejects))
    assert await versions.current_version(es, index_names) == good.version
    assert list(await versions.scan(es, index_names)) == [good.version]
    # The NPPES row is the one reject besides the plan county rows left out (test_plan_offers).
    [line] = [r for r in rejects.read_text().splitlines()[1:] if "plan_county" not in r]
    assert line.startswith(f"{sample_sources.nppes_file.name},{row},")
    assert "bulk_error: search:" in line

    report = await load(
        es, sample_sources, LoadOptions(names=index_names, max_bulk_errors=1, reject_file=rejects)
    )
    assert report.rejected == {"bulk_error": 1} and report.accounted
    assert report.documents["search"] == report.documents["providers"] - 1
    assert report.indexed == report.documents["search"]  # a provider search cannot find is not


async def test_elasticsearch_gone_midway_leaves_the_aliases_and_the_next_load_cleans_up(
    es: AsyncElasticsearch,
    relay: HoldingRelay,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    sample_copy: SampleCopy,
) -> None:
    good = sample_copy.report  # the served version: the session's load, cloned
    process, partial = await _held_load(es, relay, index_names, known=1)
    await relay.cut()  # the node is gone: the held request reset, no connection accepted
    _, stderr = await asyncio.to_thread(process.communicate, timeout=HANG_S)
    assert process.returncode == 1 and "error: Elasticsearch at" in stderr, stderr
    assert await versions.current_version(es, index_names) == good.version
    assert partial in await versions.scan(es, index_names)  # it could not clean up

    nxt = await load(es, sample_sources, LoadOptions(names=index_names))
    assert nxt.orphans_removed == [partial]
    assert list(await versions.scan(es, index_names)) == [good.version, nxt.version]
