"""Every kind of Elasticsearch failure, through every feature (/v2 and FHIR Bulk Data), answered
by the one mapping (service/storage.failure): whole requests and multi-search items alike.
Elasticsearch's own trouble (missing index, load shedding, failed shards, a node error) is a 503
with Retry-After; a request it refuses as malformed is the service's defect, a logged 500; never
a stack trace. /v2 answers a problem, /fhir an OperationOutcome."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from devtools.search_faults import SearchFaultRelay
from indexer.load.run import SourceFiles
from service.web.app import create_app
from service.web.settings import Settings
from tests.conftest import SAMPLE_TODAY, ApiClient, ClientFactory
from tests.service.bulk_calls import ASYNC, BULK_PUBLISH, KICK_OFF, ExportJob, kick_off, outcome
from tests.source_rows import active_rows

KINDS = [
    (404, "index_not_found_exception", 503, "backend_unavailable"),
    (429, "es_rejected_execution_exception", 503, "backend_unavailable"),
    (503, "search_phase_execution_exception", 503, "backend_unavailable"),
    (500, "illegal_state_exception", 503, "backend_unavailable"),
    (400, "parsing_exception", 500, "internal_error"),
]
Call = tuple[str, str, dict[str, Any] | None]
INDEX_NOT_FOUND = KINDS[0][1]
NOTHING_MATCHES: dict[str, Any] = {
    "query": "zzxqv qqzzx",
    "location": "10013",
}  # the follow-up searches run
COVERAGE_ONE_NPI = {
    "contractYear": 2026,
    "bidIds": ["H1234_001_000"],
    "npis": [{"npi": "1003000126"}],
}
PLANS_ONE_NPI = {"zip": "03031", "npis": [{"npi": "1003000126"}]}
MULTI_SEARCHES: list[Call] = [  # each of them one multi-search
    ("POST", "/v2/providers/coverage", COVERAGE_ONE_NPI),
    ("POST", "/v2/plans/search", PLANS_ONE_NPI),
]


@pytest.fixture
async def relay(es_url: str) -> AsyncIterator[SearchFaultRelay]:
    relay = SearchFaultRelay(es_url)
    await relay.start()
    yield relay
    await relay.close()


@pytest.fixture
async def export_job(api: ApiClient) -> ExportJob:
    return await kick_off(api)


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
        ("POST", "/v2/plans/search", {"zip": "03031", "npis": [{"npi": npi}]}),
        ("GET", "/v2/plans/H0104-016-000", None),
        ("GET", "/v2/directories", None),
    ]


def _bulk_calls(job: ExportJob) -> list[Call]:
    return [("GET", path, None) for path in (KICK_OFF, job.status, job.file, BULK_PUBLISH)]


async def _answer(
    client: ApiClient, auth: dict[str, str], call: Call
) -> tuple[int, dict[str, Any]]:
    """The status and the problem (or the JSON answer); on /fhir a failure's OperationOutcome
    as a problem: its issue code and text."""
    method, path, body = call
    response = await client.request(method, path, json=body, headers=auth | ASYNC)
    if response.status == 503:
        assert int(response.headers["Retry-After"]) >= 1
    if path.startswith("/fhir"):
        if response.status < 400:
            await response.read()
            return response.status, {}
        [issue] = (await outcome(response))["issue"]
        return response.status, {
            "code": issue["details"]["coding"][0]["code"],
            "detail": issue["diagnostics"],
        }
    assert response.content_type in ("application/json", "application/problem+json")
    problem = await response.json()
    return response.status, problem


@pytest.mark.parametrize(("es_status", "error_type", "status", "code"), KINDS)
async def test_whole_request_failures_through_every_feature(
    client: ApiClient,
    relay: SearchFaultRelay,
    auth_header: dict[str, str],
    sample_sources: SourceFiles,
    export_job: ExportJob,
    es_status: int,
    error_type: str,
    status: int,
    code: str,
) -> None:
    npi = active_rows(sample_sources.nppes_file)[0]["NPI"]
    relay.fail_requests(es_status, error_type)
    for call in _calls(npi) + _bulk_calls(export_job):
        answered, problem = await _answer(client, auth_header, call)
        expected = (status, code)
        if error_type == INDEX_NOT_FOUND and call[1] in (export_job.status, export_job.file):
            # Jobs live in their own index, made by the first kick-off: without it there is no
            # job to answer; nor a publication without the publication record's index.
            expected = (404, "resource_not_found")
        if error_type == INDEX_NOT_FOUND and call[1] == BULK_PUBLISH:
            expected = (404, "resource_not_found")
        assert (answered, problem["code"]) == expected, call
        assert "Traceback" not in str(problem) and error_type not in problem["detail"]
    relay.heal()
    for call in _calls(npi) + _bulk_calls(export_job):
        assert (await _answer(client, auth_header, call))[0] in (200, 202), call


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
        *MULTI_SEARCHES,
    ]
    relay.fail_items(es_status, error_type)
    for call in calls:
        answered, problem = await _answer(client, auth_header, call)
        assert (answered, problem["code"]) == (status, code), call
    relay.heal()
    for call in calls:
        assert (await _answer(client, auth_header, call))[0] == 200, call


@pytest.mark.parametrize("call", MULTI_SEARCHES, ids=lambda call: call[1])
async def test_multi_search_items_lost_with_a_node_are_retried_as_the_transport_retries(
    client: ApiClient, relay: SearchFaultRelay, auth_header: dict[str, str], call: Call
) -> None:
    """A multi-search answers 200 whatever its items say, so the transport never retries one: the
    service retries items refused for a node gone mid-search (503), as often as the transport
    would retry a whole request (2 here), and answers as if nothing had happened."""
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
