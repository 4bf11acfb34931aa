"""A full reload while 16 clients search, look up and check coverage: no request fails, every
answer is the one the data gives (never a mix of versions or an empty index), the aliases move
in one step, and the old version is pruned after. The clients ask from before the reload starts
until each has asked once more after the swap: what is checked is every answer, not how many
the machine managed to send."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from elasticsearch import AsyncElasticsearch

import tests.conftest as shared
from core.index_contract import INDEX_KINDS, IndexNames
from indexer import versions
from indexer.load.run import LoadOptions, SourceFiles, load
from tests.service.search.calls import LOWER_MANHATTAN
from tests.source_rows import active_rows, coverage_rows

CLIENTS = 16


async def test_sixteen_clients_see_no_failure_and_no_change_during_a_full_reload(
    serve: shared.Serve,
    es: AsyncElasticsearch,
    es_url: str,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    sample_copy: shared.SampleCopy,
) -> None:
    first = sample_copy.report  # served: the session's load, cloned
    settings = shared.settings_for(es_url, index_names)
    api = await serve(settings)
    headers = shared.bearer(settings)
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
    asked: Counter[str] = Counter()  # requests by when they were sent: during or after the load
    swapped = asyncio.Event()

    async def client(offset: int) -> None:
        i = offset
        while True:
            when = "after" if swapped.is_set() else "during"
            status, body = await answer(i)
            asked[when] += 1
            statuses[status] += 1
            if (status, body) != expected[i % len(requests)]:
                differing.append(requests[i % len(requests)][1])
            i += CLIENTS
            if when == "after":
                return  # one answer after the swap, then done

    # Created before the load: each client's first request is sent at the load's first await.
    clients = [asyncio.create_task(client(n)) for n in range(CLIENTS)]
    try:
        second = await load(
            es,
            sample_sources,
            LoadOptions(names=index_names, keep_versions=1, scored_on=sample_copy.scored_on),
        )
    finally:
        swapped.set()
        await asyncio.gather(*clients)

    assert asked["during"] >= CLIENTS and asked["after"] == CLIENTS
    assert statuses == {200: asked.total()}
    assert differing == []
    assert await versions.current_version(es, index_names) == second.version
    assert await versions.list_versions(es, index_names) == [second.version]  # first pruned
    stale = [index_names.versioned(kind, first.version) for kind in INDEX_KINDS]
    assert not await es.indices.exists(index=",".join(stale))
