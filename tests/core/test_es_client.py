"""ELASTICSEARCH_URL: one address or several nodes, comma-separated."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.es_client import make_client, node_urls
from service.web.settings import Settings


def test_one_address_is_one_node() -> None:
    assert node_urls("http://127.0.0.1:9200/") == ["http://127.0.0.1:9200"]


def test_several_nodes_are_comma_separated_with_spaces_tolerated() -> None:
    spec = "http://10.0.0.1:9200, https://es-2.internal:9243/ ,http://10.0.0.3:9200,"
    assert node_urls(spec) == [
        "http://10.0.0.1:9200",
        "https://es-2.internal:9243",
        "http://10.0.0.3:9200",
    ]


@pytest.mark.parametrize("spec", ["", " , ", "127.0.0.1:9200", "ftp://host:21", "http://"])
def test_what_is_not_an_address_is_refused_by_name(spec: str) -> None:
    with pytest.raises(ValueError):
        node_urls(spec)


def test_the_service_refuses_a_bad_address_at_start() -> None:
    with pytest.raises(ValidationError, match=r"127\.0\.0\.1:9201"):
        Settings(elasticsearch_url="http://127.0.0.1:9200,127.0.0.1:9201")


NODES = "http://127.0.0.1:1,http://127.0.0.2:1,http://127.0.0.3:1"


def test_a_dead_node_is_used_again_once_its_backoff_is_over() -> None:
    pool = make_client(NODES, dead_node_backoff_factor=60.0).transport.node_pool
    node = pool.get()
    pool.mark_dead(node, _now=0.0)  # failed long ago
    assert node in [pool.get() for _ in range(len(pool))]


def test_a_node_that_fails_for_several_requests_at_once_waits_out_one_backoff() -> None:
    """Requests in flight to a node that goes down all fail; the node is queued once, so after it
    fails again on its return no request is sent to it until its next backoff is over."""
    pool = make_client(NODES, dead_node_backoff_factor=60.0).transport.node_pool
    node = pool.get()
    pool.mark_dead(node, _now=0.0)  # two requests in flight to it failed, long ago
    pool.mark_dead(node, _now=0.0)
    pool.get()  # its backoff is over: it is back
    pool.mark_dead(node)  # and fails again, now
    assert node not in [pool.get() for _ in range(10 * len(pool))]
