"""Hand-framed bulk writing against the real node: every action ends up indexed exactly once or
in ``BulkResult.failed``. Rejections (429s) come from a relay in front of the node
(devtools/bulk_relay.py); the backoff's waits are recorded instead of slept."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import orjson
import pytest
from elasticsearch import ApiError, AsyncElasticsearch
from elasticsearch import ConnectionError as EsConnectionError

from core.es_client import make_client
from devtools.bulk_relay import BulkRelay
from devtools.tcp_proxy import TcpProxy
from indexer.write.bulk import Action, Backoff, Failure, Origin, action_lines, bulk_index

MAPPING = {"properties": {"n": {"type": "long"}, "name": {"type": "keyword"}}}
REFUSED_VALUE = "not a number"  # the mapping says long


class Sleeps:
    """A backoff's sleep that records the waits and returns at once."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
async def index(es: AsyncElasticsearch) -> AsyncIterator[str]:
    name = f"test-bulk-{uuid.uuid4().hex[:12]}"
    await es.indices.create(
        index=name, mappings=MAPPING, settings={"number_of_shards": 1, "number_of_replicas": 0}
    )
    yield name
    await es.indices.delete(index=name, ignore_unavailable=True)


@pytest.fixture
async def relay(es_url: str) -> AsyncIterator[BulkRelay]:
    relay = BulkRelay(es_url)
    await relay.start()
    yield relay
    await relay.close()


@pytest.fixture
async def relayed(relay: BulkRelay) -> AsyncIterator[AsyncElasticsearch]:
    """A client of the relay, made as the indexer makes its client."""
    client = make_client(relay.url)
    yield client
    await client.close()


def origin(i: int) -> Origin:
    return Origin("test.csv", i + 1, f"{1000000000 + i}")


def actions(index: str, count: int, *, refused: frozenset[int] = frozenset()) -> list[Action]:
    """``count`` index actions with ids "0", "1", ...; the ``refused`` ones break the mapping."""
    line = action_lines("index", index)
    return [
        (
            line(str(i)),
            orjson.dumps({"n": REFUSED_VALUE if i in refused else i, "name": f"doc {i}"}),
            origin(i),
        )
        for i in range(count)
    ]


def ids(*numbers: int) -> list[str]:
    return [str(i) for i in numbers]


async def versions_of(es: AsyncElasticsearch, index: str) -> dict[str, int]:
    """Every document of ``index``: its id and how many times it was written (its version)."""
    await es.indices.refresh(index=index)
    found = await es.search(index=index, size=10_000, version=True, source=False)
    return {hit["_id"]: hit["_version"] for hit in found["hits"]["hits"]}


async def test_every_action_is_indexed_once_with_at_most_concurrency_requests_in_flight(
    es: AsyncElasticsearch, index: str, relay: BulkRelay, relayed: AsyncElasticsearch
) -> None:
    relay.hold_s = 0.05  # each answer takes a while: the next chunks go out meanwhile
    result = await bulk_index(relayed, actions(index, 2000), chunk_size=250, concurrency=2)
    assert result.failed == []
    assert await versions_of(es, index) == {str(i): 1 for i in range(2000)}
    assert [len(sent) for sent in relay.bulk_ids] == [250] * 8
    assert relay.max_in_flight == 2


async def test_requests_already_sent_are_answered_before_a_failing_stream_propagates(
    es: AsyncElasticsearch, index: str, relay: BulkRelay, relayed: AsyncElasticsearch
) -> None:
    def broken_source() -> Iterator[Action]:
        yield from actions(index, 300)
        raise RuntimeError("source file broke")

    relay.hold_s = 0.3
    with pytest.raises(RuntimeError, match="source file broke"):
        await bulk_index(relayed, broken_source(), chunk_size=100, concurrency=3)
    assert relay.in_flight == 0  # none left running against indices the load then deletes
    assert len(relay.bulk_ids) == 3
    assert len(await versions_of(es, index)) == 300


@pytest.mark.parametrize("status", [429, 502, 503, 504])
async def test_whole_requests_rejected_are_sent_again_after_an_exponential_backoff(
    es: AsyncElasticsearch,
    index: str,
    relay: BulkRelay,
    relayed: AsyncElasticsearch,
    status: int,
) -> None:
    relay.reject_requests(3, status)
    sleeps = Sleeps()
    result = await bulk_index(relayed, actions(index, 10), backoff=Backoff(sleep=sleeps))
    assert result.failed == []
    assert sleeps.delays == [0.5, 1.0, 2.0]
    assert relay.bulk_ids == [ids(*range(10))] * 4
    assert await versions_of(es, index) == {str(i): 1 for i in range(10)}


@pytest.mark.parametrize("status", [429, 503])
async def test_whole_requests_still_rejected_after_the_last_retry_raise(
    es: AsyncElasticsearch,
    index: str,
    relay: BulkRelay,
    relayed: AsyncElasticsearch,
    status: int,
) -> None:
    relay.reject_requests(7, status)
    sleeps = Sleeps()
    with pytest.raises(ApiError) as raised:
        await bulk_index(relayed, actions(index, 10), backoff=Backoff(retries=6, sleep=sleeps))
    assert raised.value.status_code == status
    assert sleeps.delays == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0]  # doubling, at most 10 s
    assert len(relay.bulk_ids) == 7
    assert await versions_of(es, index) == {}


async def test_items_rejected_with_429_are_sent_again_alone_and_indexed_once(
    es: AsyncElasticsearch, index: str, relay: BulkRelay, relayed: AsyncElasticsearch
) -> None:
    relay.reject_items(ids(3, 7, 12), times=2)
    sleeps = Sleeps()
    result = await bulk_index(relayed, actions(index, 20), backoff=Backoff(sleep=sleeps))
    assert result.failed == []
    assert relay.bulk_ids == [ids(*range(20)), ids(3, 7, 12), ids(3, 7, 12)]
    assert sleeps.delays == [0.5, 1.0]
    # The relay let the node index them each time: written three times, still one document.
    resent = {"3": 3, "7": 3, "12": 3}
    assert await versions_of(es, index) == {str(i): 1 for i in range(20)} | resent


async def test_items_still_rejected_after_the_last_retry_are_failures_with_their_reason(
    es: AsyncElasticsearch, index: str, relay: BulkRelay, relayed: AsyncElasticsearch
) -> None:
    relay.reject_items(ids(5), times=10)
    sleeps = Sleeps()
    result = await bulk_index(relayed, actions(index, 20), backoff=Backoff(retries=2, sleep=sleeps))
    assert result.failed == [Failure(index, "5", 429, "rejected by the bulk relay", origin(5))]
    assert relay.bulk_ids == [ids(*range(20)), ids(5), ids(5)]
    assert sleeps.delays == [0.5, 1.0]
    others = {str(i): 1 for i in range(20) if i != 5}
    assert (await versions_of(es, index)).items() >= others.items()


async def test_a_document_the_mapping_refuses_is_a_failure_with_its_origin_and_not_sent_again(
    es: AsyncElasticsearch, index: str, relay: BulkRelay, relayed: AsyncElasticsearch
) -> None:
    sleeps = Sleeps()
    result = await bulk_index(
        relayed,
        actions(index, 1000, refused=frozenset({417})),
        chunk_size=250,
        backoff=Backoff(sleep=sleeps),
    )
    [failure] = result.failed
    assert (failure.index, failure.doc_id, failure.status) == (index, "417", 400)
    assert failure.origin == origin(417)
    assert "failed to parse field [n] of type [long]" in failure.reason
    assert sleeps.delays == [] and len(relay.bulk_ids) == 4
    assert await versions_of(es, index) == {str(i): 1 for i in range(1000) if i != 417}


async def test_counts_add_up_with_refusals_and_rejections_in_concurrent_chunks(
    es: AsyncElasticsearch, index: str, relay: BulkRelay, relayed: AsyncElasticsearch
) -> None:
    refused = frozenset({10, 1500, 2999})
    relay.reject_items(ids(20, 1200), times=1)
    relay.reject_items(ids(2500), times=99)
    result = await bulk_index(
        relayed,
        actions(index, 3000, refused=refused),
        chunk_size=500,
        concurrency=2,
        backoff=Backoff(retries=2, sleep=Sleeps()),
    )
    failed = {failure.doc_id: failure.status for failure in result.failed}
    assert failed == {"10": 400, "1500": 400, "2999": 400, "2500": 429}
    indexed = await versions_of(es, index)
    # Every action indexed or failed; what the mapping refused is not indexed.
    assert set(indexed) | set(failed) == set(ids(*range(3000)))
    assert not set(indexed) & set(ids(*refused))
    assert len(indexed) == 3000 - len(refused)
    assert (indexed["20"], indexed["1200"]) == (2, 2)


async def test_connection_errors_propagate_without_a_backoff(
    es_proxy: TcpProxy, index: str
) -> None:
    es_proxy.set_mode("reset")
    client = make_client(es_proxy.url)
    sleeps = Sleeps()
    try:
        with pytest.raises(EsConnectionError):
            await bulk_index(client, actions(index, 10), backoff=Backoff(sleep=sleeps))
    finally:
        await client.close()
    assert sleeps.delays == []


@pytest.mark.parametrize("status", [400, 500])
async def test_other_whole_request_errors_raise_at_once(
    index: str, relay: BulkRelay, relayed: AsyncElasticsearch, status: int
) -> None:
    relay.reject_requests(1, status)
    sleeps = Sleeps()
    with pytest.raises(ApiError) as raised:
        await bulk_index(relayed, actions(index, 10), backoff=Backoff(sleep=sleeps))
    assert raised.value.status_code == status
    assert sleeps.delays == [] and len(relay.bulk_ids) == 1
