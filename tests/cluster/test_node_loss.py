"""Node loss under load on a real three-node cluster (issue 17): the sample loaded with 2 shards
and 1 replica, 16 clients searching and reading by NPI through the service, the node holding a
primary of the search index killed with SIGKILL and started again. Every answer must be a 200
and equal to the one given before the kill; the cluster must be green again at the end.

Its figures are printed, and written as JSON to the path in PD_NODE_LOSS_FIGURES when that is
set (bench/node_loss.py reads them)."""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from pathlib import Path

import pytest

from core.es_client import make_client
from core.index_contract import IndexNames
from devtools.cluster import Cluster
from indexer.load.run import LoadOptions, SourceFiles, load
from service.web.app import create_app
from service.web.auth import mint_token
from tests.cluster import node_loss
from tests.cluster.calls import sample_calls
from tests.conftest import SAMPLE_TODAY, ClientFactory, settings_for

FIGURES_FILE = "PD_NODE_LOSS_FIGURES"
PAUSE = "PD_NODE_LOSS_PAUSE_S"
SHARDS, REPLICAS = 2, 1


async def test_searches_and_lookups_survive_the_loss_of_a_node(
    three_nodes: Cluster,
    aiohttp_client: ClientFactory,
    sample_sources: SourceFiles,
    capsys: pytest.CaptureFixture[str],
) -> None:
    names = IndexNames(f"test-loss-{uuid.uuid4().hex[:8]}")
    es = make_client(three_nodes.url)
    try:
        options = LoadOptions(names=names, shards=SHARDS, replicas=REPLICAS)
        await load(es, sample_sources, options)
    finally:
        await es.close()
    await asyncio.to_thread(three_nodes.wait_for, "green", timeout_s=300)  # a guard of minutes
    search_index = names.alias("search")
    assert len(await asyncio.to_thread(three_nodes.primaries, search_index)) == SHARDS

    settings = settings_for(three_nodes.url, names)
    api = await aiohttp_client(create_app(settings, today=lambda: SAMPLE_TODAY))
    # Paced by default: 16 clients at most 4 requests a second each, so the cluster's recovery
    # is not also a contest for two cores with the clients (CI runs the container tests beside
    # it). The bench sets PD_NODE_LOSS_PAUSE_S=0: every client as fast as it can.
    timeline = node_loss.Timeline(pause_s=float(os.environ.get(PAUSE, "0.25")))
    # A user (token subject) per client: 16 users, each within the per-user rate limit.
    tokens = [mint_token(settings, subject=f"client-{n}") for n in range(timeline.clients)]
    auth = [{"Authorization": f"Bearer {token}"} for token in tokens]
    figures = await node_loss.run(
        api, three_nodes, search_index, sample_calls(sample_sources.nppes_file), auth, timeline
    )

    with capsys.disabled():
        print("\n" + "\n".join(figures.lines()))
    if path := os.environ.get(FIGURES_FILE):
        await asyncio.to_thread(Path(path).write_text, json.dumps(figures.to_json(), indent=2))
    assert figures.phases["node down"].requests > 0, "no traffic while the node was gone"
    assert (figures.failed, figures.different) == (0, 0), "\n".join(figures.failures)
    assert figures.health_at_end == "green"
