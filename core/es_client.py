"""The one way both the service and the indexer build an Elasticsearch client.

``ELASTICSEARCH_URL`` names one node (or a load balancer, as managed clusters give) or several
nodes, comma-separated. With several, the client spreads requests over them, marks a node that
fails to connect as dead for a backoff and sends the request to another one. Sniffing (asking the
cluster for its other nodes) stays off: behind a load balancer or on a managed cluster the
addresses nodes publish are internal ones a client cannot reach, and a listed set of nodes plus
the dead-node backoff already survives the loss of one.

A node is queued for its backoff once per failure, not once per request that was in flight to it
(``OnceDeadNodePool``): otherwise each stale entry brings a node that is still down back early,
and a request's retries can all land on it.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any, Literal, overload
from urllib.parse import urlsplit

from elastic_transport import BaseNode, NodePool
from elastic_transport.client_utils import resolve_default
from elasticsearch import AsyncElasticsearch
from elasticsearch.serializer import OrjsonSerializer


def node_urls(spec: str) -> list[str]:
    """The node addresses in ``spec`` (comma-separated); ValueError naming a bad one."""
    urls = [part.strip().rstrip("/") for part in spec.split(",") if part.strip()]
    if not urls:
        raise ValueError("no Elasticsearch address given")
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url!r} is not an http(s)://host[:port] address")
    return urls


class OnceDeadNodePool(NodePool):
    """The transport's node pool, with a node that is already waiting out its backoff not queued
    again when more requests that were in flight to it fail. The stock pool queues it once per
    failed request, each entry with a longer backoff; as the entries expire one after another the
    node is brought back again and again while still down, which is what makes every retry of a
    request land on it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._waiting: set[object] = set()

    def mark_dead(self, node: BaseNode, _now: float | None = None) -> None:
        if node.config in self._waiting:
            return
        self._waiting.add(node.config)
        super().mark_dead(node, _now)

    @overload
    def resurrect(self, force: Literal[True] = ...) -> BaseNode: ...

    @overload
    def resurrect(self, force: Literal[False] = ...) -> BaseNode | None: ...

    def resurrect(self, force: bool = False) -> BaseNode | None:
        node = super().resurrect(True) if force else super().resurrect(False)
        if node is not None:
            self._waiting.discard(node.config)
        return node


def make_client(
    url: str,
    *,
    request_timeout: float = 30.0,
    max_retries: int = 2,
    connections: int = 32,
    api_key: str | None = None,
    ca_certs: Path | None = None,
    **options: Any,
) -> AsyncElasticsearch:
    """orjson serialisation and pooled connections to every node of ``url`` (see node_urls);
    ``api_key`` (the base64 ``id:key`` Elasticsearch issues) authenticates every request and
    ``ca_certs`` verifies https nodes signed by a private CA. ``options`` go to
    AsyncElasticsearch as is (e.g. ``node_class``, ``retry_on_status``)."""
    if api_key is not None:
        options["api_key"] = api_key
    if ca_certs is not None:
        options["ca_certs"] = str(ca_certs)
    options.setdefault("node_pool_class", OnceDeadNodePool)
    return AsyncElasticsearch(
        node_urls(url),
        request_timeout=request_timeout,
        max_retries=max_retries,
        retry_on_timeout=False,
        connections_per_node=connections,
        serializer=OrjsonSerializer(),
        **options,
    )


# Elasticsearch cannot answer now: shedding load (429), or a node or shard out of reach. Retried
# by the indexer's bulk writes after a pause; a 503 with Retry-After from the service.
OVERLOADED_STATUSES = frozenset({429, 502, 503, 504})
# What the service retries on another node: a node that is gone or a coordinating node that
# could not reach a shard answer fast, so a retry costs little. Not 429: a cluster shedding load
# is not helped by more requests; the caller gets a 503 with Retry-After instead.
RETRY_ON_STATUS: Collection[int] = tuple(sorted(OVERLOADED_STATUSES - {429}))


def whole_request_retries(es: AsyncElasticsearch) -> tuple[int, frozenset[int]]:
    """How many times, and after which statuses, ``es`` retries a whole request on another node:
    its own options (``make_client``, ``.options()``), else its transport's defaults. The client
    has no public reader for them."""
    retries = resolve_default(es._max_retries, es.transport.max_retries)
    return retries, frozenset(resolve_default(es._retry_on_status, es.transport.retry_on_status))
