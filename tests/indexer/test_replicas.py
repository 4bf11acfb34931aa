"""A new version's copies: replicas the cluster cannot hold are refused before anything is
written, the swap waits for the copies, a yellow version is served and a red one never is."""

from __future__ import annotations

import asyncio
import warnings

import pytest
from elasticsearch import AsyncElasticsearch
from elasticsearch.exceptions import GeneralAvailabilityWarning

from core.es_client import make_client
from core.index_contract import IndexNames
from indexer import versions
from indexer.load.replicas import CopiesUnavailable, wait_for_copies
from indexer.load.run import LoadError, LoadOptions, LoadReport, SourceFiles, load

HANG_S = 120.0  # a guard against a hang: the test ends as soon as the copies are placed
NOWHERE = {"index.routing.allocation.require._name": "no-such-node"}


async def _data_nodes(es: AsyncElasticsearch) -> int:
    return int((await es.cluster.health())["number_of_data_nodes"])


async def _health_call_waiting(es: AsyncElasticsearch) -> None:
    """Returns once a cluster health call is waiting in the node (its task is listed)."""
    async with asyncio.timeout(HANG_S):
        while True:
            with warnings.catch_warnings():  # the task list API is a "technical preview"
                warnings.simplefilter("ignore", GeneralAvailabilityWarning)
                tasks = await es.tasks.list(actions="cluster:monitor/health")
            if any(node["tasks"] for node in tasks["nodes"].values()):
                return
            await asyncio.sleep(0.01)


async def test_more_replicas_than_the_cluster_holds_are_refused_before_writing(
    es: AsyncElasticsearch, index_names: IndexNames, sample_sources: SourceFiles
) -> None:
    replicas = await _data_nodes(es)  # every copy needs its own node: one too many
    options = LoadOptions(names=index_names, replicas=replicas)
    with pytest.raises(LoadError, match=f"--replicas {replicas - 1}"):
        await load(es, sample_sources, options)
    assert await versions.scan(es, index_names) == {}
    assert await versions.current_version(es, index_names) is None


async def test_a_load_is_served_green_once_its_copies_are_placed(
    loaded_sample: tuple[IndexNames, LoadReport],
) -> None:
    _, report = loaded_sample
    assert report.copies == "green"


async def test_unplaceable_replicas_leave_a_yellow_version_that_may_be_served(
    es: AsyncElasticsearch, index_names: IndexNames
) -> None:
    index = index_names.versioned("search", "copies")
    replicas = await _data_nodes(es)
    await es.indices.create(index=index, settings={"number_of_replicas": replicas})
    copies = await wait_for_copies(es, [index], timeout_s=0.5)
    assert copies.status == "yellow"
    assert copies.unassigned_shards == replicas


async def test_the_wait_ends_green_once_the_copies_are_placed(
    es: AsyncElasticsearch, index_names: IndexNames
) -> None:
    """It waits for green, not merely for an answer: asked while the copies cannot be placed,
    it answers green once they can (here: the replicas lowered to what the cluster holds while
    the health call is still waiting)."""
    index = index_names.versioned("search", "copies")
    replicas = await _data_nodes(es)
    await es.indices.create(index=index, settings={"number_of_replicas": replicas})
    waiting = asyncio.create_task(wait_for_copies(es, [index], timeout_s=HANG_S))
    await _health_call_waiting(es)
    assert not waiting.done()
    await es.indices.put_settings(index=index, settings={"number_of_replicas": replicas - 1})
    copies = await waiting
    assert (copies.status, copies.unassigned_shards) == ("green", 0)


async def test_the_wait_outlasts_the_clients_request_timeout(
    es: AsyncElasticsearch, es_url: str, index_names: IndexNames
) -> None:
    index = index_names.versioned("search", "copies")
    await es.indices.create(index=index, settings={"number_of_replicas": await _data_nodes(es)})
    impatient = make_client(es_url, request_timeout=0.5)
    try:
        # Three times the client's timeout: with the client's own timeout the call would fail
        # with a connection timeout; it answers, yellow, when the wait runs out.
        copies = await wait_for_copies(impatient, [index], timeout_s=1.5)
    finally:
        await impatient.close()
    assert copies.status == "yellow"


async def test_a_version_missing_a_primary_is_never_served(
    es: AsyncElasticsearch, index_names: IndexNames
) -> None:
    index = index_names.versioned("search", "copies")
    await es.indices.create(
        index=index, settings={"number_of_replicas": 0, **NOWHERE}, wait_for_active_shards="0"
    )
    with pytest.raises(CopiesUnavailable, match="red"):
        await wait_for_copies(es, [index], timeout_s=0.5)
