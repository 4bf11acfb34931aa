"""/readyz follows the health of the served indices: green and yellow (a replica missing, every
answer still there) are ready, red (a primary missing) is not, and it recovers without a restart.

The session's node is one node, so the states are made with real index settings: a replica
that has no second node to go to (yellow), a primary that may go to no node (red)."""

from __future__ import annotations

from typing import Any

from elasticsearch import AsyncElasticsearch

from core.index_contract import INDEX_KINDS, IndexNames
from service.web.app import create_app
from service.web.settings import Settings
from tests.conftest import ApiClient, ClientFactory, settings_for

NOWHERE = {"index.routing.allocation.require._name": "no-such-node"}
HANG_S = 300  # a guard against a hang, not a measure of speed


async def _serve_indices(
    es: AsyncElasticsearch, names: IndexNames, search_settings: dict[str, Any]
) -> str:
    """Empty indices behind every alias of ``names``; the search one with ``search_settings``."""
    for kind in INDEX_KINDS:
        index = names.versioned(kind, "readiness")
        await es.indices.create(
            index=index,
            settings=search_settings if kind == "search" else {"number_of_replicas": 0},
            aliases={names.alias(kind): {}},
            wait_for_active_shards="0",
        )
    return names.versioned("search", "readiness")


async def _readiness(
    aiohttp_client: ClientFactory, es_url: str, names: IndexNames
) -> tuple[ApiClient, Settings]:
    settings = settings_for(es_url, names)
    return await aiohttp_client(create_app(settings)), settings


async def test_green_indices_are_ready(api: ApiClient) -> None:
    response = await api.get("/readyz")
    assert response.status == 200
    assert await response.json() == {"status": "ready", "detail": "ok", "health": "green"}


async def test_a_missing_replica_is_still_ready(
    aiohttp_client: ClientFactory, es: AsyncElasticsearch, es_url: str, index_names: IndexNames
) -> None:
    nodes = int((await es.cluster.health())["number_of_nodes"])
    await _serve_indices(es, index_names, {"number_of_replicas": nodes})  # one more than fits
    client, _ = await _readiness(aiohttp_client, es_url, index_names)
    response = await client.get("/readyz")
    assert response.status == 200
    answer = await response.json()
    assert (answer["status"], answer["health"]) == ("ready", "yellow")


async def test_a_missing_primary_is_not_ready_until_it_is_assigned(
    aiohttp_client: ClientFactory, es: AsyncElasticsearch, es_url: str, index_names: IndexNames
) -> None:
    search_index = await _serve_indices(es, index_names, {"number_of_replicas": 0, **NOWHERE})
    client, _ = await _readiness(aiohttp_client, es_url, index_names)
    response = await client.get("/readyz")
    assert response.status == 503
    answer = await response.json()
    assert (answer["status"], answer["health"]) == ("not_ready", "red")

    await es.indices.put_settings(
        index=search_index, settings={"index.routing.allocation.require._name": None}
    )
    waiting = es.options(request_timeout=HANG_S + 30)
    await waiting.cluster.health(index=search_index, wait_for_status="green", timeout=f"{HANG_S}s")
    response = await client.get("/readyz")  # the same service, never restarted
    assert response.status == 200
    assert (await response.json())["health"] == "green"
