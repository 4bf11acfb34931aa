"""A load that fails, is interrupted or is killed never touches what is being served."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path
from typing import Any

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from indexer import documents, orphans, pipeline, versions
from indexer.load import LoadError, LoadOptions, SourceFiles, load
from tests.indexer.conftest import indexer_process
from tests.source_rows import active_rows, nppes_rows


async def _start_killable_load(
    es: AsyncElasticsearch, es_url: str, names: IndexNames, known: int
) -> tuple[Any, str]:
    """A CLI load talking to ``es_url`` in a child process, returned once its new indices exist
    (watched through ``es``) and documents flow."""
    process = indexer_process(
        es_url, names, "load", "--source-dir", "data/sample", "--chunk-size", "100",
        "--concurrency", "1",
    )  # fmt: skip
    while len(found := await versions.scan(es, names)) <= known:
        assert process.poll() is None, process.communicate()
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.5)  # midway: bulk requests are going out
    assert process.poll() is None, "the load finished before it could be killed"
    return process, list(found)[-1]


async def test_sigterm_midway_leaves_the_aliases_and_removes_the_new_indices(
    es: AsyncElasticsearch, es_url: str, index_names: IndexNames, sample_sources: SourceFiles
) -> None:
    good = await load(es, sample_sources, LoadOptions(names=index_names))
    process, _ = await _start_killable_load(es, es_url, index_names, known=1)
    process.send_signal(signal.SIGTERM)
    _, stderr = await asyncio.to_thread(process.communicate, timeout=60)
    assert process.returncode == 130, stderr
    assert "partial indices removed, aliases unchanged" in stderr
    assert await versions.current_version(es, index_names) == good.version
    assert list(await versions.scan(es, index_names)) == [good.version]


async def test_after_sigkill_the_next_load_removes_the_orphaned_version(
    es: AsyncElasticsearch, es_url: str, index_names: IndexNames, sample_sources: SourceFiles
) -> None:
    good = await load(es, sample_sources, LoadOptions(names=index_names))
    process, killed = await _start_killable_load(es, es_url, index_names, known=1)
    process.kill()
    await asyncio.to_thread(process.communicate, timeout=60)
    assert await versions.current_version(es, index_names) == good.version
    assert killed in await versions.scan(es, index_names)  # left behind: no clean-up possible
    assert await versions.list_versions(es, index_names) == [good.version]  # not a target

    nxt = await load(es, sample_sources, LoadOptions(names=index_names))
    assert nxt.orphans_removed == [killed]
    assert list(await versions.scan(es, index_names)) == [good.version, nxt.version]
    assert await versions.rollback(es, index_names) == good.version


async def test_orphan_clean_up_spares_live_loads_and_rollback_targets(
    es: AsyncElasticsearch, es_url: str, index_names: IndexNames, sample_sources: SourceFiles
) -> None:
    first = await load(es, sample_sources, LoadOptions(names=index_names))
    finished = indexer_process(es_url, index_names, "load", "--source-dir", "data/sample")
    await asyncio.to_thread(finished.communicate, timeout=120)
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
) -> None:
    good = await load(es, sample_sources, LoadOptions(names=index_names))
    build = documents.build_documents

    source = nppes_rows(sample_sources.nppes)
    row = 1 + source.index(active_rows(sample_sources.nppes)[5])  # 1-based data row number

    def corrupt_one(record: Any, *args: Any) -> documents.ProviderDocuments:
        docs = build(record, *args)
        if record.row_number == row:  # an object where the mapping has a keyword: refused
            docs.provider["npis"] = [{"not": "a keyword"}]  # type: ignore[list-item]
        return docs

    monkeypatch.setattr(pipeline, "build_documents", corrupt_one)
    rejects = tmp_path / "rejects.csv"
    with pytest.raises(LoadError, match="1 documents failed"):
        await load(es, sample_sources, LoadOptions(names=index_names, reject_file=rejects))
    assert await versions.current_version(es, index_names) == good.version
    assert list(await versions.scan(es, index_names)) == [good.version]
    [line] = rejects.read_text().splitlines()[1:]
    assert line.startswith(f"{sample_sources.nppes.name},{row},")
    assert "bulk_error: providers:" in line

    report = await load(
        es, sample_sources, LoadOptions(names=index_names, max_bulk_errors=1, reject_file=rejects)
    )
    assert report.rejected == {"bulk_error": 1} and report.accounted
    assert report.documents["providers"] == report.documents["search"] - 1


class _Proxy:
    """A TCP relay to Elasticsearch that can be cut, to take Elasticsearch away mid-load."""

    def __init__(self, target: str) -> None:
        self._host, port = target.removeprefix("http://").rsplit(":", 1)
        self._port = int(port)
        self._writers: list[asyncio.StreamWriter] = []
        self._server: asyncio.Server | None = None

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(self._host, self._port)
        self._writers += [writer, upstream_writer]

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(ConnectionError):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            sink.close()

        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))

    def cut(self) -> None:
        assert self._server is not None
        self._server.close()
        for writer in self._writers:
            writer.transport.abort()


async def test_elasticsearch_gone_midway_leaves_the_aliases_and_the_next_load_cleans_up(
    es: AsyncElasticsearch, es_url: str, index_names: IndexNames, sample_sources: SourceFiles
) -> None:
    good = await load(es, sample_sources, LoadOptions(names=index_names))
    proxy = _Proxy(es_url)
    process, partial = await _start_killable_load(es, await proxy.start(), index_names, known=1)
    proxy.cut()
    _, stderr = await asyncio.to_thread(process.communicate, timeout=120)
    assert process.returncode == 1 and "error: Elasticsearch at" in stderr, stderr
    assert await versions.current_version(es, index_names) == good.version
    assert partial in await versions.scan(es, index_names)  # it could not clean up

    nxt = await load(es, sample_sources, LoadOptions(names=index_names))
    assert nxt.orphans_removed == [partial]
    assert list(await versions.scan(es, index_names)) == [good.version, nxt.version]
