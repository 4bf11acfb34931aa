"""``$export``'s error paths on a real Elasticsearch made to fail: an output file never looks whole
when it is not (Elasticsearch failing before its first byte is a 503 OperationOutcome, after
it the transfer breaks), a snapshot gone is a clear 404 that ends the job, and the parts of a
job that do not exist are 404s."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import orjson
import pytest
from aiohttp import web
from elasticsearch import AsyncElasticsearch
from yarl import URL

from core.index_contract import IndexNames
from devtools.search_faults import SearchFaultRelay
from devtools.tcp_proxy import TcpProxy
from service.fhir.export import store as export_store
from service.web.settings import Settings
from tests.conftest import ApiClient, Serve
from tests.plan_net_rows import resources

ASYNC = {"Prefer": "respond-async"}
NODE_ERROR = (503, "search_phase_execution_exception")
# What the reference export publishes (each served once, its id prefixed by the directory's).
ENDPOINTS = len({endpoint["id"] for endpoint in resources("Endpoint")})


class PagesThenFailing(SearchFaultRelay):
    """Relays everything, but once ``pages`` searches are answered, fails every read as a node
    in trouble does (``pages`` None: no failure planned)."""

    def __init__(self, upstream: str) -> None:
        super().__init__(upstream)
        self.pages: int | None = None

    async def _handle(self, request: web.Request) -> web.Response:
        if request.path.endswith("/_search") and self.pages is not None:
            if self.pages == 0:
                self.fail_requests(*NODE_ERROR)
            self.pages -= 1
        return await super()._handle(request)


@pytest.fixture
async def relay(es_url: str) -> AsyncIterator[PagesThenFailing]:
    relay = PagesThenFailing(es_url)
    await relay.start()
    yield relay
    await relay.close()


@pytest.fixture
async def relayed(serve: Serve, sample_settings: Settings, relay: PagesThenFailing) -> ApiClient:
    """The service reading through the relay, an output file a page of two hits at a time."""
    update = {"elasticsearch_url": relay.url, "export_page_size": 2}
    return await serve(sample_settings.model_copy(update=update))


async def _files(api: ApiClient, query: str) -> tuple[str, list[str]]:
    """A kick-off's status path and its output files' paths."""
    kick_off = await api.get(f"/fhir/$export{query}", headers=ASYNC)
    assert kick_off.status == 202, await kick_off.text()
    status = URL(kick_off.headers["Content-Location"]).path
    manifest = await (await api.get(status)).json()
    return status, [URL(entry["url"]).path for entry in manifest["output"]]


async def _outcome(response: aiohttp.ClientResponse, status: int) -> dict[str, object]:
    assert response.status == status, response.headers  # a body may never end: not read
    assert response.content_type == "application/fhir+json"
    outcome = await response.json()
    assert outcome["resourceType"] == "OperationOutcome"
    return dict(outcome)


async def test_a_file_whose_first_page_fails_is_a_503_not_an_empty_200(
    relayed: ApiClient, relay: PagesThenFailing
) -> None:
    _, (file,) = await _files(relayed, "?_type=Endpoint")
    relay.pages = 0  # the job is read; its first page is not
    outcome = await _outcome(await relayed.get(file), 503)
    assert outcome["issue"][0]["code"] == "transient"  # type: ignore[index]


async def test_a_file_failing_after_its_first_bytes_breaks_the_transfer(
    relayed: ApiClient, relay: PagesThenFailing
) -> None:
    _, (file,) = await _files(relayed, "?_type=Endpoint")
    whole = await relayed.get(file)
    assert len((await whole.read()).splitlines()) == ENDPOINTS  # the file, read whole
    relay.pages = 1  # its first page of two is sent, the next search fails
    response = await relayed.get(file)
    assert response.status == 200  # sent with the first page, before anything failed
    with pytest.raises(aiohttp.ClientError):  # "payload not completed"
        await response.read()  # no last chunk: never taken for a whole, shorter file


async def test_a_file_with_elasticsearch_gone_is_a_503(
    serve: Serve, sample_settings: Settings, es_url: str
) -> None:
    proxy = TcpProxy(es_url)
    await proxy.start()
    try:
        api = await serve(sample_settings.model_copy(update={"elasticsearch_url": proxy.url}))
        _, (file,) = await _files(api, "?_type=Endpoint")
        proxy.set_mode("reset")
        outcome = await _outcome(await api.get(file), 503)
        assert outcome["issue"][0]["code"] == "transient"  # type: ignore[index]
        proxy.set_mode("forward")
        response = await api.get(file)
        assert response.status == 200
        assert len((await response.read()).splitlines()) == ENDPOINTS
    finally:
        await proxy.close()


async def test_a_snapshot_gone_under_a_job_is_a_404_that_ends_it(
    api: ApiClient, es: AsyncElasticsearch, served_names: IndexNames
) -> None:
    status, (file,) = await _files(api, "?_type=Endpoint")
    job = await export_store.job(es, served_names, status.rsplit("/", 1)[-1])
    assert job is not None
    for pit in job.pits.values():  # as a node restart or a reload's deletes close them
        await es.close_point_in_time(id=pit)
    outcome = await _outcome(await api.get(file), 404)
    diagnostics = str(outcome["issue"][0]["diagnostics"])  # type: ignore[index]
    assert "snapshot is gone" in diagnostics and "kick off a new export" in diagnostics
    await _outcome(await api.get(status), 404)  # the job can no longer be served whole


async def test_a_cancelled_job_cancelled_again_is_a_404(api: ApiClient) -> None:
    status, _ = await _files(api, "?_type=Endpoint")
    assert (await api.delete(status)).status == 202
    await _outcome(await api.delete(status), 404)
    await _outcome(await api.get(status), 404)


async def test_the_files_a_job_does_not_have_are_404s(api: ApiClient) -> None:
    status, files = await _files(api, "?_type=Endpoint,InsurancePlan")
    job = status.rsplit("/", 1)[-1]
    # Endpoints: one file of hits; InsurancePlans: their one plan-built file.
    assert files == [
        f"/fhir/$export-file/{job}/Endpoint/0",
        f"/fhir/$export-file/{job}/InsurancePlan/0",
    ]
    for missing in (
        "Endpoint/1",
        "Endpoint/-1",
        "Endpoint/99999999999999999999",
        "Endpoint/1e3",
        "Endpoint/ 0",
        "InsurancePlan/1",
        "Practitioner/0",  # a type the job was not asked for
        "Patient/0",
        "deleted/0",  # no _since: no removals
        "error/0",  # nothing left out
    ):
        await _outcome(await api.get(f"/fhir/$export-file/{job}/{missing}"), 404)
    for present in files:
        lines = (await (await api.get(present)).read()).splitlines()
        assert lines and all(orjson.loads(line)["resourceType"] in present for line in lines)
