"""ELASTICSEARCH_URL, ELASTICSEARCH_API_KEY and ELASTICSEARCH_CA_CERTS: read the same way by the
service and the indexer, and given to every node's connection (the key as requests to a real node
carry it: Elasticsearch without security ignores it)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import certifi
import pytest

from core.es_settings import ElasticsearchAccess
from devtools.bulk_relay import BulkRelay
from indexer.settings import IndexerSettings
from service.web.settings import Settings

NODES = "https://127.0.0.1:9201,https://127.0.0.2:9202"
API_KEY = "VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw=="


@pytest.fixture(params=[Settings, IndexerSettings], ids=["service", "indexer"])
def settings_class(request: pytest.FixtureRequest) -> type[ElasticsearchAccess]:
    chosen: type[ElasticsearchAccess] = request.param
    return chosen


@pytest.fixture
async def two_nodes(es_url: str) -> AsyncIterator[list[BulkRelay]]:
    """Two loopback relays in front of the real node, each recording the Authorization header
    of every request: a cluster of two addresses whose requests can be seen."""
    relays = [BulkRelay(es_url), BulkRelay(es_url)]
    try:
        for relay in relays:
            await relay.start()
        yield relays
    finally:
        for relay in relays:
            await relay.close()


def _addresses(relays: list[BulkRelay]) -> str:
    return ",".join(relay.url for relay in relays)


async def _ask_each_node(settings: ElasticsearchAccess) -> None:
    es = settings.connect(max_retries=0)
    try:
        for _ in range(4):  # requests go round the nodes
            await es.cluster.health()
    finally:
        await es.close()


@pytest.mark.parametrize(
    ("api_key", "expected"), [(API_KEY, f"ApiKey {API_KEY}"), (None, None)], ids=["key", "none"]
)
async def test_the_api_key_authenticates_every_node_and_is_never_shown(
    settings_class: type[ElasticsearchAccess],
    monkeypatch: pytest.MonkeyPatch,
    two_nodes: list[BulkRelay],
    api_key: str | None,
    expected: str | None,
) -> None:
    monkeypatch.setenv("ELASTICSEARCH_URL", _addresses(two_nodes))
    if api_key is None:
        monkeypatch.delenv("ELASTICSEARCH_API_KEY", raising=False)
    else:
        monkeypatch.setenv("ELASTICSEARCH_API_KEY", api_key)
    settings = settings_class()
    assert API_KEY not in repr(settings)
    await _ask_each_node(settings)
    seen = [relay.authorizations for relay in two_nodes]
    assert all(seen)  # both nodes were asked
    assert {header for record in seen for header in record} == {expected}


async def test_a_private_ca_verifies_every_https_node(
    settings_class: type[ElasticsearchAccess], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ELASTICSEARCH_URL", NODES)
    monkeypatch.setenv("ELASTICSEARCH_CA_CERTS", certifi.where())
    es = settings_class().connect()
    try:
        nodes = es.transport.node_pool.all()
        assert {node.config.ca_certs for node in nodes} == {certifi.where()}
        assert all(node.config.verify_certs for node in nodes)
    finally:
        await es.close()


def test_the_indexer_refuses_what_is_not_an_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ELASTICSEARCH_URL", "es1:9200")
    with pytest.raises(ValueError, match="not an http"):
        IndexerSettings()
