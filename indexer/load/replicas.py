"""A new version's shard copies on a cluster: whether the cluster can hold them, and waiting
for them before the version is served.

A version loads without replicas (each document is written once, and the final merge runs once);
``versions.finish_version`` then asks for the replicas, which Elasticsearch copies from the merged
primaries. The aliases move only once the copies are placed (green) or, when the wait runs out,
while every primary is active (yellow): a yellow version answers every search and lookup, it is
just not yet protected against the loss of a node. A red one (a primary missing) is never served.

Writes wait for one active copy (Elasticsearch's default, kept on purpose): a load writes before
replicas exist, and an update in place must go on while a lost node is being replaced. Every
in-sync copy still receives each write before the bulk request answers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from elasticsearch import AsyncElasticsearch

Status = Literal["green", "yellow", "red"]
HEALTH_ANSWER_S = 30.0  # beyond the wait, for Elasticsearch to answer the health call


class CopiesUnavailable(RuntimeError):
    """The new version cannot be served (red), or the cluster cannot hold the replicas asked for."""


@dataclass(frozen=True)
class Copies:
    status: Status
    unassigned_shards: int
    waited_s: float


async def check_replicas(es: AsyncElasticsearch, replicas: int) -> None:
    """Refuse, before anything is written, replicas the cluster has no nodes for: Elasticsearch
    never places two copies of a shard on one node, so the version would stay yellow forever."""
    health = await es.cluster.health()
    data_nodes = int(health["number_of_data_nodes"])
    if replicas >= data_nodes:
        raise CopiesUnavailable(
            f"{replicas} replica(s) need {replicas + 1} data nodes and the cluster has"
            f" {data_nodes}: use --replicas {max(data_nodes - 1, 0)} (PD_REPLICAS), or add nodes"
        )


async def wait_for_copies(es: AsyncElasticsearch, indices: list[str], timeout_s: float) -> Copies:
    """Wait up to ``timeout_s`` for every copy of ``indices`` (green); CopiesUnavailable when a
    primary is still missing at the end (red)."""
    started = time.monotonic()
    # The client's own request timeout is shorter than a replica copy of a national index may
    # take; the health call itself ends at ``timeout``, so the request gets a little longer.
    waiting = es.options(ignore_status=408, request_timeout=timeout_s + HEALTH_ANSWER_S)
    response = await waiting.cluster.health(
        index=",".join(indices),
        wait_for_status="green",
        wait_for_no_initializing_shards=True,
        timeout=f"{max(int(timeout_s * 1000), 1)}ms",
    )
    status: Status = response["status"]
    copies = Copies(
        status=status,
        unassigned_shards=int(response["unassigned_shards"]),
        waited_s=time.monotonic() - started,
    )
    if status == "red":
        raise CopiesUnavailable(
            f"the new version is red ({copies.unassigned_shards} shard copies unassigned,"
            " a primary among them) after waiting; it was not served"
        )
    return copies
