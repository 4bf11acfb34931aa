"""The one way both the service and the indexer build an Elasticsearch client."""

from __future__ import annotations

from typing import Any

from elasticsearch import AsyncElasticsearch
from elasticsearch.serializer import OrjsonSerializer


def make_client(
    url: str,
    *,
    request_timeout: float = 30.0,
    max_retries: int = 2,
    connections: int = 32,
    **options: Any,
) -> AsyncElasticsearch:
    """orjson serialisation and pooled connections; ``options`` go to AsyncElasticsearch as is
    (e.g. ``node_class``, ``dead_node_backoff_factor``)."""
    return AsyncElasticsearch(
        url,
        request_timeout=request_timeout,
        max_retries=max_retries,
        retry_on_timeout=False,
        connections_per_node=connections,
        serializer=OrjsonSerializer(),
        **options,
    )
