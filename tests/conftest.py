"""Shared fixtures: one real Elasticsearch node per test session, a random index prefix per test
(or per read-only module), the service built through its own factory."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import date
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from elasticsearch import AsyncElasticsearch

from core.es_client import make_client
from core.index_contract import IndexNames
from devtools import es_launcher
from indexer.load.run import LoadOptions, LoadReport, SourceFiles, load
from service.web.app import create_app
from service.web.auth import mint_token
from service.web.settings import ALL_SCOPES, Settings

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "data" / "sample"
TEST_SECRET = secrets.token_urlsafe(32)
TEST_ES_TIMEOUT_S = 30.0
# "Today" for the sample's load and its service, pinned: the day the sample's coverage rows
# terminate (terminations are exclusive, so those rows are no longer in force on it).
SAMPLE_TODAY = date(2026, 7, 1)

ApiClient = TestClient[web.Request, web.Application]
ClientFactory = Callable[..., Awaitable[ApiClient]]


@pytest.fixture(scope="session")
def es_url() -> Iterator[str]:
    node = es_launcher.start()
    yield node.url
    if node.started_here:
        es_launcher.stop()


@pytest.fixture(scope="session")
async def es(es_url: str) -> AsyncIterator[AsyncElasticsearch]:
    client = make_client(es_url)
    yield client
    await client.close()


async def _drop(es: AsyncElasticsearch, names: IndexNames) -> None:
    await es.indices.delete(
        index=f"{names.prefix}-*", ignore_unavailable=True, allow_no_indices=True
    )


@pytest.fixture
async def index_names(es: AsyncElasticsearch) -> AsyncIterator[IndexNames]:
    """Fresh, empty index names for one test; everything under them is removed afterwards."""
    names = IndexNames(f"test-{uuid.uuid4().hex[:12]}")
    yield names
    await _drop(es, names)


@pytest.fixture(scope="session")
def sample_sources() -> SourceFiles:
    return SourceFiles.discover(SAMPLE_DIR)


@pytest.fixture(scope="session")
async def loaded_sample(
    es: AsyncElasticsearch, sample_sources: SourceFiles
) -> AsyncIterator[tuple[IndexNames, LoadReport]]:
    """The bundled sample loaded once under its own prefix, for read-only tests."""
    names = IndexNames(f"test-sample-{uuid.uuid4().hex[:8]}")
    report = await load(es, sample_sources, LoadOptions(names=names))
    yield names, report
    await _drop(es, names)


def settings_for(es_url: str, names: IndexNames) -> Settings:
    return Settings(
        environment="test",
        elasticsearch_url=es_url,
        index_prefix=names.prefix,
        jwt_secret=TEST_SECRET,
        # Not the production budget (0.9 s): a busy CI machine must not turn a slow
        # answer into a 503. Tests about timeouts set their own.
        es_request_timeout_s=TEST_ES_TIMEOUT_S,
        es_max_retries=2,
    )


@pytest.fixture
def sample_settings(es_url: str, loaded_sample: tuple[IndexNames, LoadReport]) -> Settings:
    return settings_for(es_url, loaded_sample[0])


@pytest.fixture
async def api(aiohttp_client: ClientFactory, sample_settings: Settings) -> ApiClient:
    return await aiohttp_client(create_app(sample_settings, today=lambda: SAMPLE_TODAY))


BOOM_PATH = "/boom"
BOOM_MESSAGE = "secret internals"


@pytest.fixture
async def failing_api(aiohttp_client: ClientFactory, sample_settings: Settings) -> ApiClient:
    """The service with one extra route, GET /boom, that fails in an unexpected way."""

    async def boom(_request: web.Request) -> web.Response:
        raise RuntimeError(BOOM_MESSAGE)

    app = create_app(sample_settings, today=lambda: SAMPLE_TODAY)
    app.router.add_get(BOOM_PATH, boom)
    return await aiohttp_client(app)


@pytest.fixture
def auth_header(sample_settings: Settings) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_token(sample_settings, scopes=ALL_SCOPES)}"}


def pytest_sessionstart(session: pytest.Session) -> None:
    """Print the random order's seed even under -q: a failure that depends on the order can be
    replayed with ``pytest -p randomly --randomly-seed=N``."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    seed = session.config.getoption("randomly_seed", default=None)
    if reporter is not None and seed is not None:
        reporter.write_line(f"test order: random, --randomly-seed={seed}")
