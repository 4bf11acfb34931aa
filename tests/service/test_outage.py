"""An Elasticsearch outage seen from the service, through every Elasticsearch-backed endpoint
(/v2 and FHIR Bulk Data): 503 + Retry-After, recovery without a restart.

The session's node is shared, so the outage is made by a TCP proxy in front of it
(devtools/tcp_proxy.py): cutting its connections is, for the service, a node that went away;
forwarding again on the same port is the node coming back; a hung proxy accepts and never
answers. How fast the 503 comes and how fast the service recovers are measured by
bench/outage_bench.py (BENCHMARKS.md), not asserted here.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from devtools.tcp_proxy import TcpProxy
from service.web.app import create_app
from service.web.settings import Settings
from tests.conftest import TEST_ES_TIMEOUT_S, ApiClient, ClientFactory
from tests.service.bulk_calls import ASYNC, BULK_PUBLISH, KICK_OFF, ExportJob, kick_off, outcome

PROVIDER = "/v2/providers/1003000100"
SEARCH = "/v2/providers/search"
COVERAGE = "/v2/providers/coverage"
# Far beyond any answer of the sample on a slow, busy box: the answers after the hang must fit in
# it too; the hung calls wait it out side by side, once.
HUNG_TIMEOUT_S = 15.0
COVERAGE_BODY = {"contractYear": 2026, "bidIds": ["H1234_001_000"], "npis": [{"npi": "1003000100"}]}
PLANS_BODY: dict[str, object] = {"zip": "03031", "npis": [{"npi": "1003000100"}]}


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    body: dict[str, object] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    ok: int = 200  # what it answers while Elasticsearch is there


@pytest.fixture
async def proxy(es_url: str) -> AsyncIterator[TcpProxy]:
    proxy = TcpProxy(es_url)
    await proxy.start()
    yield proxy
    await proxy.close()


@pytest.fixture
async def export_job(api: ApiClient) -> ExportJob:
    return await kick_off(api)


def every_call(job: ExportJob, with_kick_off: bool = True) -> list[Call]:
    """One call of every Elasticsearch-backed endpoint: /v2 and FHIR Bulk Data (a kick-off
    writes a job, so the tests that loop many times leave it out)."""
    calls = [
        Call("GET", PROVIDER),
        Call("GET", f"{PROVIDER}/locations"),
        Call("POST", SEARCH, {"query": "cardio", "location": "10013"}),
        Call("POST", COVERAGE, COVERAGE_BODY),
        Call("POST", "/v2/plans/search", PLANS_BODY),
        Call("GET", "/v2/plans/H0104-016-000"),
        Call("GET", job.status),
        Call("GET", job.file),
        Call("GET", BULK_PUBLISH),
    ]
    return calls + ([Call("GET", KICK_OFF, headers=ASYNC, ok=202)] if with_kick_off else [])


def healthy(calls: list[Call]) -> list[int]:
    return [call.ok for call in calls]


async def _statuses(
    client: ApiClient, auth: dict[str, str], calls: list[Call], at_once: bool = False
) -> list[int]:
    """The status of every call (one after the other, or all at once); every 503 is checked to
    be the documented answer with a Retry-After: a problem on /v2, an OperationOutcome on
    /fhir."""

    async def call(asked: Call) -> int:
        headers = auth | asked.headers
        response = await client.request(asked.method, asked.path, json=asked.body, headers=headers)
        if response.status == 503:
            assert int(response.headers["Retry-After"]) >= 1, asked
            if asked.path.startswith("/fhir"):
                assert (await outcome(response))["issue"][0]["code"] == "transient", asked
            else:
                assert response.content_type == "application/problem+json", asked
                assert (await response.json())["code"] == "backend_unavailable", asked
        else:
            await response.read()
        return response.status

    if at_once:
        return list(await asyncio.gather(*(call(c) for c in calls)))
    return [await call(c) for c in calls]


ProxiedClient = Callable[[float], Awaitable[ApiClient]]


@pytest.fixture
def proxied_client(
    aiohttp_client: ClientFactory, sample_settings: Settings, proxy: TcpProxy
) -> ProxiedClient:
    """A service whose Elasticsearch is behind the proxy, with the given request timeout."""

    async def make(timeout_s: float) -> ApiClient:
        update = {"elasticsearch_url": proxy.url, "es_request_timeout_s": timeout_s}
        return await aiohttp_client(create_app(sample_settings.model_copy(update=update)))

    return make


async def test_outage_is_503_and_recovery_needs_no_restart(
    proxied_client: ProxiedClient,
    auth_header: dict[str, str],
    proxy: TcpProxy,
    export_job: ExportJob,
) -> None:
    client = await proxied_client(10.0)
    calls = every_call(export_job)
    assert await _statuses(client, auth_header, calls) == healthy(calls)

    proxy.set_mode("reset")
    assert await _statuses(client, auth_header, calls) == [503] * len(calls)
    assert (await client.get("/readyz")).status == 503
    assert (await client.get("/healthz")).status == 200  # alive, just not ready

    proxy.set_mode("forward")  # the node is back, same address; the app was never restarted
    assert await _statuses(client, auth_header, calls) == healthy(calls)
    assert (await client.get("/readyz")).status == 200


async def test_a_hung_node_is_a_503_once_the_request_times_out(
    proxied_client: ProxiedClient,
    auth_header: dict[str, str],
    proxy: TcpProxy,
    export_job: ExportJob,
) -> None:
    # A budget every answer of the sample fits in on a slow, busy machine (not a tight one the
    # answers after the hang would have to beat); the hung calls wait it out side by side.
    client = await proxied_client(HUNG_TIMEOUT_S)
    calls = every_call(export_job)
    proxy.set_mode("hang")
    assert await _statuses(client, auth_header, calls, at_once=True) == [503] * len(calls)
    proxy.set_mode("forward")
    assert await _statuses(client, auth_header, calls) == healthy(calls)


@pytest.fixture
async def unavailable_node() -> AsyncIterator[str]:
    """A node that answers every request with a 503, as a load balancer whose backend is gone."""

    async def unavailable(_request: web.Request) -> web.Response:
        return web.json_response({"error": "no backend", "status": 503}, status=503)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", unavailable)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    yield str(server.make_url("")).rstrip("/")
    await server.close()


async def test_with_several_nodes_a_lost_one_costs_no_request(
    aiohttp_client: ClientFactory,
    sample_settings: Settings,
    auth_header: dict[str, str],
    proxy: TcpProxy,
    es_url: str,
    export_job: ExportJob,
) -> None:
    """The proxy plays a node that went away, the session's node the one that survives; the
    client's node order is random, so both orders come up over the rounds."""
    proxy.set_mode("reset")
    settings = sample_settings.model_copy(
        update={
            "elasticsearch_url": f"{proxy.url},{es_url}",
            "es_request_timeout_s": TEST_ES_TIMEOUT_S,
        }
    )
    calls = every_call(export_job, with_kick_off=False)
    for _ in range(4):  # a new client (and node order) each round
        client = await aiohttp_client(create_app(settings))
        for _ in range(3):
            assert await _statuses(client, auth_header, calls) == healthy(calls)
        assert (await client.get("/readyz")).status == 200


async def test_a_node_answering_503_is_retried_on_another(
    aiohttp_client: ClientFactory,
    sample_settings: Settings,
    auth_header: dict[str, str],
    unavailable_node: str,
    es_url: str,
    export_job: ExportJob,
) -> None:
    settings = sample_settings.model_copy(
        update={
            "elasticsearch_url": f"{unavailable_node},{es_url}",
            "es_request_timeout_s": TEST_ES_TIMEOUT_S,
        }
    )
    calls = every_call(export_job, with_kick_off=False)
    for _ in range(4):
        client = await aiohttp_client(create_app(settings))
        for _ in range(3):
            assert await _statuses(client, auth_header, calls) == healthy(calls)


async def test_with_every_node_lost_the_answer_is_503(
    aiohttp_client: ClientFactory,
    sample_settings: Settings,
    auth_header: dict[str, str],
    proxy: TcpProxy,
    unavailable_node: str,
    export_job: ExportJob,
) -> None:
    proxy.set_mode("reset")
    settings = sample_settings.model_copy(
        update={"elasticsearch_url": f"{proxy.url},{unavailable_node}"}
    )
    client = await aiohttp_client(create_app(settings))
    calls = every_call(export_job)
    assert await _statuses(client, auth_header, calls) == [503] * len(calls)
    assert (await client.get("/readyz")).status == 503
