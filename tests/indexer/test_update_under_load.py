"""A weekly update while 16 clients search and look up: no request fails, providers the file
does not name answer as before, a search or a changed provider answers as before or as after
(never anything else), and after the update every changed provider answers the new way. The
clients ask from before the update starts until each has asked once more after it returned:
what is checked is every answer, not how many the machine managed to send."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

from elasticsearch import AsyncElasticsearch

import tests.conftest as shared
from core.index_contract import IndexNames
from indexer.generate.weekly import UpdateCounts, generate_update
from indexer.load.run import SourceFiles
from indexer.update.nppes import update_nppes
from indexer.update.options import UpdateOptions
from tests.service.search.calls import LOWER_MANHATTAN
from tests.source_rows import active_rows

CLIENTS = 16
WEEK = UpdateCounts(new=100, changed=1000, deactivated=50, reactivated=10, stale=10)

Answer = tuple[int, Any]


async def test_sixteen_clients_see_no_failure_and_old_or_new_answers_during_an_update(
    serve: shared.Serve,
    es: AsyncElasticsearch,
    es_url: str,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    sample_copy: shared.SampleCopy,
    tmp_path: Path,
) -> None:
    week = generate_update(sample_sources.nppes_file, tmp_path / "week.csv", WEEK, seed=11)
    settings = shared.settings_for(es_url, sample_copy.names)
    api = await serve(settings)
    headers = shared.bearer(settings)
    named = {*week.npis.changed, *week.npis.deactivated, *week.npis.stale}
    untouched = [r["NPI"] for r in active_rows(sample_sources.nppes_file) if r["NPI"] not in named]
    requests: list[tuple[str, str, dict[str, Any] | None]] = [
        ("POST", "/v2/providers/search", {"location": LOWER_MANHATTAN, "radius": 5}),
        ("POST", "/v2/providers/search", {"query": "family medicine", "location": "10013"}),
        *(("GET", f"/v2/providers/{npi}", None) for npi in untouched[:20]),
        *(("GET", f"/v2/providers/{npi}", None) for npi in week.npis.changed[:30]),
        *(("GET", f"/v2/providers/{npi}/locations", None) for npi in week.npis.deactivated[:10]),
    ]

    async def answer(i: int) -> Answer:
        method, path, body = requests[i % len(requests)]
        response = await api.request(method, path, json=body, headers=headers)
        answered = await response.json()
        if response.status != 200:  # a problem: its type, not its per-request fields
            return response.status, answered["type"]
        return response.status, answered

    before = [await answer(i) for i in range(len(requests))]
    statuses: Counter[int] = Counter()
    seen: list[tuple[int, Answer]] = []
    asked: Counter[str] = Counter()  # requests by when they were sent: during or after
    updated = asyncio.Event()

    async def client(offset: int) -> None:
        i = offset
        while True:
            when = "after" if updated.is_set() else "during"
            got = await answer(i)
            asked[when] += 1
            statuses[got[0]] += 1
            seen.append((i % len(requests), got))
            i += CLIENTS
            if when == "after":
                return  # one answer after the update returned, then done

    # Created before the update: each client's first request is sent at its first await.
    clients = [asyncio.create_task(client(n)) for n in range(CLIENTS)]
    try:
        options = UpdateOptions(names=sample_copy.names)
        report = await update_nppes(es, week.out, options)
    finally:
        updated.set()
        await asyncio.gather(*clients)
    after = [await answer(i) for i in range(len(requests))]

    assert report.accounted and report.outcomes["changed"] == WEEK.changed
    assert asked["during"] >= CLIENTS and asked["after"] == CLIENTS
    assert set(statuses) <= {200, 404}  # 404: a deactivated provider, once the update shows
    searches, untouched_lookups = range(2), range(2, 2 + 20)
    assert all(after[i] == before[i] for i in untouched_lookups)
    for i, got in seen:  # searches and changed providers: the old answer or the new one
        if i not in untouched_lookups:
            assert got in (before[i], after[i]), (requests[i][1], requests[i][2])
    assert all(got == before[i] for i, got in seen if i in untouched_lookups)
    assert [i for i in searches if after[i][0] != 200] == []
    changed_answers = range(2 + 20, len(requests))
    assert all(after[i] != before[i] for i in changed_answers)
