"""A weekly update while 16 clients search and look up: no request fails, providers the file
does not name answer as before, a changed provider answers as before or as after (never
anything else), and after the update every changed provider answers the new way."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from pathlib import Path
from typing import Any

from elasticsearch import AsyncElasticsearch

import tests.conftest as shared
from core.index_contract import IndexNames
from indexer.generate.weekly import UpdateCounts, generate_update
from indexer.load.run import LoadOptions, SourceFiles, load
from indexer.update.nppes import update_nppes
from indexer.update.options import UpdateOptions
from service.web.app import create_app
from service.web.auth import mint_token
from service.web.settings import ALL_SCOPES
from tests.service.search.calls import LOWER_MANHATTAN
from tests.source_rows import active_rows

CLIENTS = 16
MAX_REQUESTS = 20_000  # bounded whatever the machine's speed
MAX_SECONDS = 120.0
WEEK = UpdateCounts(new=100, changed=1000, deactivated=50, reactivated=10, stale=10)

Answer = tuple[int, Any]


async def test_sixteen_clients_see_no_failure_and_old_or_new_answers_during_an_update(
    aiohttp_client: shared.ClientFactory,
    es: AsyncElasticsearch,
    es_url: str,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    tmp_path: Path,
) -> None:
    await load(es, sample_sources, LoadOptions(names=index_names))
    week = generate_update(sample_sources.nppes_file, tmp_path / "week.csv", WEEK, seed=11)
    settings = shared.settings_for(es_url, index_names).model_copy(update={"rate_limit_per_s": 0})
    api = await aiohttp_client(create_app(settings, today=lambda: shared.SAMPLE_TODAY))
    headers = {"Authorization": f"Bearer {mint_token(settings, scopes=ALL_SCOPES)}"}
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
    done = asyncio.Event()
    deadline = time.monotonic() + MAX_SECONDS

    async def client(offset: int) -> None:
        i = offset
        while not done.is_set() and i < MAX_REQUESTS and time.monotonic() < deadline:
            got = await answer(i)
            statuses[got[0]] += 1
            seen.append((i % len(requests), got))
            i += CLIENTS

    clients = [asyncio.create_task(client(n)) for n in range(CLIENTS)]
    try:
        options = UpdateOptions(names=index_names)
        report = await update_nppes(es, week.out, options)
        await asyncio.sleep(0.3)  # answers right after the refresh count too
    finally:
        done.set()
        await asyncio.gather(*clients)
    after = [await answer(i) for i in range(len(requests))]

    assert report.accounted and report.outcomes["changed"] == WEEK.changed
    assert sum(statuses.values()) > 100, "the clients should have been busy during the update"
    assert set(statuses) <= {200, 404}  # 404: a deactivated provider, once the update shows
    searches_and_untouched = range(2 + 20)
    assert all(after[i] == before[i] for i in searches_and_untouched if i >= 2)
    for i, got in seen:
        if i >= 2:
            assert got in (before[i], after[i]), requests[i][1]
    changed_answers = range(2 + 20, len(requests))
    assert all(after[i] != before[i] for i in changed_answers)
