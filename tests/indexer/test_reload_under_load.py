"""A full reload while 16 clients search, look up and check coverage: no request fails, every
answer is the one the data gives (never a mix of versions or an empty index), the aliases move
in one step, and the old version is pruned after."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any

from elasticsearch import AsyncElasticsearch

import tests.conftest as shared
from core.index_contract import INDEX_KINDS, IndexNames
from indexer import versions
from indexer.load.run import LoadOptions, SourceFiles, load
from service.web.app import create_app
from service.web.auth import mint_token
from service.web.settings import ALL_SCOPES
from tests.service.search.calls import LOWER_MANHATTAN
from tests.source_rows import active_rows, coverage_rows

CLIENTS = 16
MAX_REQUESTS = 20_000  # bounded whatever the machine's speed
MAX_SECONDS = 240.0


async def test_sixteen_clients_see_no_failure_and_no_change_during_a_full_reload(
    aiohttp_client: shared.ClientFactory,
    es: AsyncElasticsearch,
    es_url: str,
    index_names: IndexNames,
    sample_sources: SourceFiles,
) -> None:
    first = await load(es, sample_sources, LoadOptions(names=index_names, keep_versions=1))
    settings = shared.settings_for(es_url, index_names).model_copy(update={"rate_limit_per_s": 0})
    api = await aiohttp_client(create_app(settings, today=lambda: shared.SAMPLE_TODAY))
    headers = {"Authorization": f"Bearer {mint_token(settings, scopes=ALL_SCOPES)}"}
    npis = [row["NPI"] for row in active_rows(sample_sources.nppes_file)[:40]]
    covered = coverage_rows(shared.SAMPLE_DIR)[0]
    requests: list[tuple[str, str, dict[str, Any] | None]] = [
        ("POST", "/v2/providers/search", {"location": LOWER_MANHATTAN, "radius": 5}),
        ("POST", "/v2/providers/search", {"query": "family medicine", "location": "10013"}),
        ("POST", "/v2/providers/search", {"query": "smith"}),
        *(("GET", f"/v2/providers/{npi}", None) for npi in npis[:20]),
        *(("GET", f"/v2/providers/{npi}/locations", None) for npi in npis[20:]),
        (
            "POST",
            "/v2/providers/coverage",
            {
                "contractYear": int(covered["contract_year"]),
                "bidIds": [covered["bid_id"]],
                "npis": [{"npi": covered["npi"]}, {"npi": npis[0]}],
            },
        ),
    ]

    async def answer(i: int) -> tuple[int, Any]:
        method, path, body = requests[i % len(requests)]
        response = await api.request(method, path, json=body, headers=headers)
        return response.status, await response.json()

    expected = [await answer(i) for i in range(len(requests))]
    assert all(status == 200 for status, _ in expected)

    statuses: Counter[int] = Counter()
    differing: list[str] = []
    reloading = asyncio.Event()
    done = asyncio.Event()
    deadline = time.monotonic() + MAX_SECONDS

    async def client(offset: int) -> None:
        i = offset
        while not done.is_set() and i < MAX_REQUESTS and time.monotonic() < deadline:
            status, body = await answer(i)
            statuses[status] += 1
            if reloading.is_set() and (status, body) != expected[i % len(requests)]:
                differing.append(requests[i % len(requests)][1])
            i += CLIENTS

    clients = [asyncio.create_task(client(n)) for n in range(CLIENTS)]
    reloading.set()
    try:
        second = await load(es, sample_sources, LoadOptions(names=index_names, keep_versions=1))
        await asyncio.sleep(0.5)  # answers right after the swap count too
    finally:
        done.set()
        await asyncio.gather(*clients)

    assert sum(statuses.values()) > 200, "the clients should have been busy during the reload"
    assert statuses == {200: sum(statuses.values())}
    assert differing == []
    assert await versions.current_version(es, index_names) == second.version
    assert await versions.list_versions(es, index_names) == [second.version]  # first pruned
    stale = [index_names.versioned(kind, first.version) for kind in INDEX_KINDS]
    assert not await es.indices.exists(index=",".join(stale))
