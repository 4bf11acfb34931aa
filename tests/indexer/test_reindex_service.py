"""The service keeps answering, correctly, while a reindex builds and swaps a new version."""

from __future__ import annotations

import asyncio
from typing import Any

from elasticsearch import AsyncElasticsearch

import tests.conftest as shared
from core.es_client import make_client
from core.index_contract import IndexNames
from indexer import versions
from indexer.load.run import LoadOptions, SourceFiles, load
from tests.indexer.expected import dac_rows
from tests.indexer.holding_relay import HANG_S, HoldingRelay
from tests.source_rows import active_rows


async def test_every_request_succeeds_with_the_same_answer_during_a_reindex(
    serve: shared.Serve,
    es: AsyncElasticsearch,
    es_url: str,
    index_names: IndexNames,
    sample_copy: shared.SampleCopy,
    sample_sources: SourceFiles,
) -> None:
    first = sample_copy.report  # the served version: the session's load, cloned
    settings = shared.settings_for(es_url, index_names)
    api = await serve(settings)
    headers = shared.bearer(settings)
    active = {row["NPI"] for row in active_rows(sample_sources.nppes_file)}
    with_dac = sorted({r["NPI"].strip() for _, r in dac_rows(shared.SAMPLE_DIR)} & active)
    npis = sorted(active)[:10] + with_dac[:10]
    paths = [f"/v2/providers/{npi}{tail}" for npi in npis for tail in ("", "/locations")]

    async def get(path: str) -> tuple[int, Any]:
        response = await api.get(path, headers=headers)
        return response.status, await response.json()

    before = {path: await get(path) for path in paths}
    assert all(status == 200 and body for status, body in before.values())

    # The reindex goes through a relay that holds its fourth bulk request (one at a time: three
    # were answered), so the answers below are given while the new version is being written
    # (not merely "while the task ran").
    relay = HoldingRelay(es_url, lambda _method, path: path.endswith("/_bulk"), let_through=3)
    await relay.start()
    proxied = make_client(relay.url, request_timeout=HANG_S)
    try:
        options = LoadOptions(
            names=index_names, chunk_size=200, concurrency=1, scored_on=sample_copy.scored_on
        )
        reindex = asyncio.create_task(load(proxied, sample_sources, options))
        async with asyncio.timeout(HANG_S):  # a guard against a hang, not a measure of speed
            await asyncio.wait(
                {reindex, asyncio.create_task(relay.held.wait())},
                return_when=asyncio.FIRST_COMPLETED,
            )
        assert relay.held.is_set() and not reindex.done(), reindex
        [new] = [v for v in await versions.scan(es, index_names) if v != first.version]
        assert await versions.current_version(es, index_names) == first.version
        for path in paths:  # during the reindex
            assert await get(path) == before[path], path
        relay.release()
        second = await reindex
    finally:
        await proxied.close()
        await relay.close()
    for path in paths:  # and after the swap
        assert await get(path) == before[path], path
    assert await versions.current_version(es, index_names) == second.version == new
