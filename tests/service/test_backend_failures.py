"""Every kind of Elasticsearch failure, through every feature, answered by the one mapping
(service/storage.failure): whole requests and multi-search items alike. Elasticsearch's own
trouble (missing index, load shedding, failed shards, a node error) is a 503 with Retry-After;
a request it refuses as malformed is the service's defect, a logged 500; never a stack trace."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from devtools.search_faults import SearchFaultRelay
from indexer.load.run import SourceFiles
from service.web.app import create_app
from service.web.settings import Settings
from tests.conftest import SAMPLE_TODAY, ApiClient, ClientFactory
from tests.source_rows import active_rows

KINDS = [
    (404, "index_not_found_exception", 503, "backend_unavailable"),
    (429, "es_rejected_execution_exception", 503, "backend_unavailable"),
    (503, "search_phase_execution_exception", 503, "backend_unavailable"),
    (500, "illegal_state_exception", 503, "backend_unavailable"),
    (400, "parsing_exception", 500, "internal_error"),
]
Call = tuple[str, str, dict[str, Any] | None]
NOTHING_MATCHES: dict[str, Any] = {
    "query": "zzxqv qqzzx",
    "location": "10013",
}  # the follow-up searches run
COVERAGE_ONE_NPI = {
    "contractYear": 2026,
    "bidIds": ["H1234_001_000"],
    "npis": [{"npi": "1003000126"}],
}


@pytest.fixture
async def relay(es_url: str) -> AsyncIterator[SearchFaultRelay]:
    relay = SearchFaultRelay(es_url)
    await relay.start()
    yield relay
    await relay.close()


@pytest.fixture
async def client(
    aiohttp_client: ClientFactory, sample_settings: Settings, relay: SearchFaultRelay
) -> ApiClient:
    settings = sample_settings.model_copy(update={"elasticsearch_url": relay.url})
    return await aiohttp_client(create_app(settings, today=lambda: SAMPLE_TODAY))


def _calls(npi: str) -> list[Call]:
    coverage = {"contractYear": 2026, "bidIds": ["H1234_001_000"], "npis": [{"npi": npi}]}
    return [
        ("POST", "/v2/providers/search", {"query": "cardio", "location": "10013"}),
        ("GET", f"/v2/providers/{npi}", None),
        ("GET", f"/v2/providers/{npi}/locations", None),
        ("POST", "/v2/providers/coverage", coverage),
    ]


async def _answer(
    client: ApiClient, auth: dict[str, str], call: Call
) -> tuple[int, dict[str, Any]]:
    method, path, body = call
    response = await client.request(method, path, json=body, headers=auth)
    assert response.content_type in ("application/json", "application/problem+json")
    problem = await response.json()
    if response.status == 503:
        assert int(response.headers["Retry-After"]) >= 1
    return response.status, problem


@pytest.mark.parametrize(("es_status", "error_type", "status", "code"), KINDS)
async def test_whole_request_failures_through_every_feature(
    client: ApiClient,
    relay: SearchFaultRelay,
    auth_header: dict[str, str],
    sample_sources: SourceFiles,
    es_status: int,
    error_type: str,
    status: int,
    code: str,
) -> None:
    npi = active_rows(sample_sources.nppes_file)[0]["NPI"]
    relay.fail_requests(es_status, error_type)
    for call in _calls(npi):
        answered, problem = await _answer(client, auth_header, call)
        assert (answered, problem["code"]) == (status, code), call
        assert "Traceback" not in str(problem) and error_type not in problem["detail"]
    relay.heal()
    for call in _calls(npi):
        assert (await _answer(client, auth_header, call))[0] == 200, call


@pytest.mark.parametrize(("es_status", "error_type", "status", "code"), KINDS)
async def test_multi_search_item_failures_through_every_feature(
    client: ApiClient,
    relay: SearchFaultRelay,
    auth_header: dict[str, str],
    es_status: int,
    error_type: str,
    status: int,
    code: str,
) -> None:
    calls: list[Call] = [
        ("POST", "/v2/providers/search", NOTHING_MATCHES),  # its follow-ups are a multi-search
        ("POST", "/v2/providers/coverage", COVERAGE_ONE_NPI),  # one multi-search
    ]
    relay.fail_items(es_status, error_type)
    for call in calls:
        answered, problem = await _answer(client, auth_header, call)
        assert (answered, problem["code"]) == (status, code), call
    relay.heal()
    for call in calls:
        assert (await _answer(client, auth_header, call))[0] == 200, call


async def test_multi_search_items_lost_with_a_node_are_retried_as_the_transport_retries(
    client: ApiClient, relay: SearchFaultRelay, auth_header: dict[str, str]
) -> None:
    """A multi-search answers 200 whatever its items say, so the transport never retries one: the
    service retries items refused for a node gone mid-search (503), as often as the transport
    would retry a whole request (2 here), and answers as if nothing had happened."""
    call: Call = ("POST", "/v2/providers/coverage", COVERAGE_ONE_NPI)
    expected = await _answer(client, auth_header, call)
    assert expected[0] == 200
    for failures in (1, 2):
        relay.fail_items(503, "search_phase_execution_exception", times=failures)
        before = relay.multi_searches
        assert await _answer(client, auth_header, call) == expected
        assert relay.multi_searches - before == failures + 1


@pytest.mark.parametrize(
    ("es_status", "error_type", "multi_searches", "status"),
    [
        (503, "search_phase_execution_exception", 3, 503),  # the retries used up
        (429, "es_rejected_execution_exception", 1, 503),  # shedding load: not asked again
        (400, "parsing_exception", 1, 500),  # the service's defect: asking again cannot help
    ],
)
async def test_multi_search_items_retried_only_while_it_can_help(
    client: ApiClient,
    relay: SearchFaultRelay,
    auth_header: dict[str, str],
    es_status: int,
    error_type: str,
    multi_searches: int,
    status: int,
) -> None:
    relay.fail_items(es_status, error_type)
    before = relay.multi_searches
    call: Call = ("POST", "/v2/providers/coverage", COVERAGE_ONE_NPI)
    assert (await _answer(client, auth_header, call))[0] == status
    assert relay.multi_searches - before == multi_searches
