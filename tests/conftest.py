"""Shared fixtures, one per concept: one real Elasticsearch node per test session (one for all
the workers of a ``-n N`` run, which get a module at a time); the bundled sample loaded once per
session (read-only) and a writable copy of it per test that changes data (cloned, not
reloaded); a random index prefix per test; the service built through its own factory
with the rate limiter off (``settings_for``: the one switch); the in-force rule of the sample's
coverage rows and the distance, written here independently of the code under test; and
``needs``: what a test needs that a machine may lack (fails in CI, skips locally)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from elasticsearch import AsyncElasticsearch
from xdist.scheduler import LoadFileScheduling

from core.clock import today_utc
from core.es_client import make_client
from core.index_contract import INDEX_KINDS, IndexNames
from devtools import es_launcher
from indexer.generate.plan_net import generate_plan_net
from indexer.generate.plan_net_faults import DEFAULT_RATES
from indexer.load.run import LoadOptions, LoadReport, SourceFiles, load
from service.web.app import create_app
from service.web.auth import mint_token
from service.web.settings import ALL_SCOPES, Settings
from tests.plan_net_rows import PLAN_NET_DIR, PLAN_NET_NAME
from tests.shared_loads import drop, end_of_run, once_per_run, start_of_run
from tests.source_rows import in_force, miles

if TYPE_CHECKING:
    from xdist.remote import Producer

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "data" / "sample"
TEST_SECRET = secrets.token_urlsafe(32)
TEST_ES_TIMEOUT_S = 30.0
# Every node the tests start (the session's, the clusters', the containers') compiles with C1
# only: a node that lives minutes spends half its start-up CPU in the C2 compiler (a start took
# 19 s of CPU with it, 10 s without), and the suite runs on two cores.
TEST_JVM_OPTIONS = "-XX:TieredStopAtLevel=1"
os.environ.setdefault("PD_ES_JVM_OPTIONS", TEST_JVM_OPTIONS)
# "Today" for the sample's load and its service, pinned: the day the sample's coverage rows
# terminate (terminations are exclusive, so those rows are no longer in force on it).
SAMPLE_TODAY = date(2026, 7, 1)
# The session's loads score confidence for the day before today, as when midnight falls during a
# run: a test that compares them with what it loads or updates itself must give their day
# (``SampleCopy.scored_on``), so missing it fails every run, not only runs that cross midnight.
SCORED_THE_DAY_BEFORE = today_utc() - timedelta(days=1)

ApiClient = TestClient[web.Request, web.Application]
ClientFactory = Callable[..., Awaitable[ApiClient]]
Serve = Callable[..., Awaitable[ApiClient]]
InForce = Callable[[dict[str, str], date], bool]
Miles = Callable[[tuple[float, float], tuple[float, float]], float]


def needs(problem: str | None) -> None:
    """Go on when ``problem`` is None; otherwise the test cannot run here: with ``CI=true`` that
    is a failure (CI provides Docker, chromium and clusters, so their absence is a broken
    machine, never a green run), elsewhere a skip that says why in one line."""
    if problem is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and this test cannot run: {problem}", pytrace=False)
    pytest.skip(problem)


CONTAINER_TESTS = "PD_CONTAINER_TESTS"  # set by `make container-test`


def needs_docker(problem: str | None) -> None:
    """For a test of the containers: they run under ``make container-test``
    (PD_CONTAINER_TESTS=1), where a missing engine is ``needs`` (a failure with CI=true); CI runs
    it beside ``make test``, on the engine it starts. Anywhere else they are skipped, saying
    where they run."""
    if os.environ.get(CONTAINER_TESTS) == "1":
        needs(problem)
        return
    pytest.skip(f"run by `make container-test`{f' ({problem})' if problem else ''}")


def missing(problem: str) -> NoReturn:
    needs(problem)
    raise AssertionError("unreachable")  # needs() fails or skips on a problem


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


@pytest.fixture
async def index_names(es: AsyncElasticsearch) -> AsyncIterator[IndexNames]:
    """Fresh, empty index names for one test; everything under them is removed afterwards."""
    names = IndexNames(f"test-{uuid.uuid4().hex[:12]}")
    yield names
    await drop(es, names)


@pytest.fixture(scope="session")
def sample_sources() -> SourceFiles:
    return SourceFiles.discover(SAMPLE_DIR)


async def _read_only(
    es: AsyncElasticsearch, sources: SourceFiles, names: IndexNames
) -> tuple[IndexNames, LoadReport]:
    report = await load(es, sources, LoadOptions(names=names, scored_on=SCORED_THE_DAY_BEFORE))
    assert report.accounted
    indices = ",".join(names.versioned(kind, report.version) for kind in INDEX_KINDS)
    await es.indices.put_settings(index=indices, settings={"index.blocks.write": True})
    return names, report


@contextlib.asynccontextmanager
async def read_only_load(
    es: AsyncElasticsearch, sources: SourceFiles, stem: str
) -> AsyncIterator[tuple[IndexNames, LoadReport]]:
    """``sources`` loaded under a prefix of their own, write-blocked (a test that writes to them
    fails instead of changing what others read), once per run (tests.shared_loads)."""
    async with once_per_run(es, stem, lambda names: _read_only(es, sources, names)) as made:
        yield made


@pytest.fixture(scope="session")
async def loaded_sample(
    es: AsyncElasticsearch, sample_sources: SourceFiles
) -> AsyncIterator[tuple[IndexNames, LoadReport]]:
    """The bundled sample loaded once under its own prefix, for read-only tests (a test that
    writes takes ``sample_copy``)."""
    async with read_only_load(es, sample_sources, "sample") as loaded:
        yield loaded


@pytest.fixture(scope="session")
async def plan_net_sample(
    es: AsyncElasticsearch, sample_sources: SourceFiles
) -> AsyncIterator[IndexNames]:
    """The sample with the Plan-Net reference export (`provider-indexer load --source-dir
    data/sample --plan-net data/sample/plannet --plan-net-name ri`), loaded once, read-only."""
    sources = dataclasses.replace(
        sample_sources, plan_net=PLAN_NET_DIR, plan_net_name=PLAN_NET_NAME
    )
    async with read_only_load(es, sources, "plan-net") as (names, _):
        yield names


@dataclass(frozen=True)
class FaultySample:
    """The sample loaded with a generated Plan-Net export of it, known faults injected."""

    names: IndexNames
    report: LoadReport
    export: Path
    truth: Path  # the generator's truth file: every defect the export publishes


FAULTY_DIRECTORY = "payer"  # the faulty export's directory name, as loaded and served


@pytest.fixture(scope="session")
async def faulty_sample(
    es: AsyncElasticsearch, sample_sources: SourceFiles, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[FaultySample]:
    """`generate-plan-net --faults default --plans ... --nucc ...` of the NPPES sample, with its
    truth file beside it, loaded with the sample once per session, read-only."""

    async def make(names: IndexNames) -> FaultySample:
        folder = tmp_path_factory.mktemp("faulty")
        export, truth = folder / FAULTY_DIRECTORY, folder / "truth.json"
        await asyncio.to_thread(
            generate_plan_net,
            sample_sources.nppes_file,
            export,
            plans=sample_sources.plans,
            nucc=sample_sources.nucc,
            faults=DEFAULT_RATES,
            truth=truth,
        )
        sources = dataclasses.replace(
            sample_sources, plan_net=export, plan_net_name=FAULTY_DIRECTORY
        )
        _, report = await _read_only(es, sources, names)
        return FaultySample(names, report, export, truth)

    async with once_per_run(es, "faulty", make) as faulty:
        yield faulty


@dataclass(frozen=True)
class SampleCopy:
    """The loaded sample under a test's own index names: the same version (its report says
    what was loaded), served by the same aliases, and the test's to change."""

    names: IndexNames
    report: LoadReport

    @property
    def scored_on(self) -> date:
        """The day its confidence was scored for: a load or update meant to answer as it does
        gives this day, which is not today when midnight falls during the session."""
        return date.fromisoformat(self.report.scored_on)


@pytest.fixture
async def sample_copy(
    es: AsyncElasticsearch,
    loaded_sample: tuple[IndexNames, LoadReport],
    index_names: IndexNames,
) -> SampleCopy:
    """A writable copy of the session's loaded sample for a test that writes (an update, a
    reload, a rollback): every index cloned (Elasticsearch shares the segment files, so this
    costs a fraction of a second, not a load), its ``_meta`` (version, state, provenance)
    included, and the aliases on it as after a load."""
    source, report = loaded_sample

    async def clone(kind: str) -> None:
        await es.indices.clone(
            index=source.versioned(kind, report.version),  # type: ignore[arg-type]
            target=index_names.versioned(kind, report.version),  # type: ignore[arg-type]
            # Writable, and no replicas: a clone would otherwise ask for one.
            settings={"index.blocks.write": None, "index.number_of_replicas": 0},
            aliases={index_names.alias(kind): {}},  # type: ignore[arg-type]
            wait_for_active_shards="all",
        )

    await asyncio.gather(*(clone(kind) for kind in INDEX_KINDS))
    return SampleCopy(index_names, report)


def settings_for(es_url: str, names: IndexNames, *, rate_limited: bool = False) -> Settings:
    """The service's settings on ``names``. The rate limiter is off unless ``rate_limited``
    (the one switch): a test that is not about rate limits must never meet a 429, however fast
    the machine answers."""
    settings = Settings(
        environment="test",
        elasticsearch_url=es_url,
        index_prefix=names.prefix,
        jwt_secret=TEST_SECRET,
        # Not the production budget (0.9 s): a busy CI machine must not turn a slow
        # answer into a 503. Tests about timeouts set their own.
        es_request_timeout_s=TEST_ES_TIMEOUT_S,
        es_max_retries=2,
        # No delivery loop: a test about webhooks runs its own (tests/service/watches).
        webhook_delivery=False,
    )
    return settings if rate_limited else settings.model_copy(update={"rate_limit_per_s": 0.0})


def bearer(settings: Settings) -> dict[str, str]:
    """The Authorization header of a token with every scope, valid for ``settings``."""
    return {"Authorization": f"Bearer {mint_token(settings, scopes=ALL_SCOPES)}"}


@pytest.fixture
def served_names(loaded_sample: tuple[IndexNames, LoadReport]) -> IndexNames:
    """What ``api`` serves: the session's sample; a module serving other data overrides this."""
    return loaded_sample[0]


@pytest.fixture
def sample_settings(es_url: str, served_names: IndexNames) -> Settings:
    return settings_for(es_url, served_names)


@pytest.fixture
def serve(aiohttp_client: ClientFactory) -> Serve:
    """The API client: the service built by its own factory on ``settings``, with "today" pinned
    to ``SAMPLE_TODAY`` unless the test passes its own clock."""

    async def make(
        settings: Settings, today: Callable[[], date] = lambda: SAMPLE_TODAY
    ) -> ApiClient:
        return await aiohttp_client(create_app(settings, today=today))

    return make


@pytest.fixture
async def api(serve: Serve, sample_settings: Settings) -> ApiClient:
    return await serve(sample_settings)


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
    return bearer(sample_settings)


@pytest.fixture(name="in_force")
def in_force_rule() -> InForce:
    """Whether a row of the sample's coverage file is in force on a day (tests.source_rows)."""
    return in_force


@pytest.fixture(name="miles")
def distance() -> Miles:
    """Haversine miles between two (lat, lng) points (tests.source_rows)."""
    return miles


FHIR_TESTS = "tests/service/fhir/"


class WholeModules(LoadFileScheduling):  # type: ignore[misc]  # pytest-xdist has no types
    """How ``-n N`` deals the tests out: a module at a time (its module-scoped loads happen once),
    and every FHIR test to the same worker (each worker that runs one loads the sample with its
    Plan-Net export, ``plan_net_sample``: so only once)."""

    def _split_scope(self, nodeid: str) -> str:
        module = super()._split_scope(nodeid)
        return FHIR_TESTS if module.startswith(FHIR_TESTS) else module


def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> WholeModules:
    return WholeModules(config, log)


# The longest units of work (the FHIR tests, on one worker, take a quarter of the suite): dealt
# out first, so no worker is left running one of them alone at the end.
LONGEST_FIRST = (FHIR_TESTS, "tests/service/test_schemathesis.py")


@pytest.hookimpl(trylast=True)  # after pytest-randomly's shuffle, whose order is kept otherwise
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: not item.nodeid.startswith(LONGEST_FIRST))


def _distributed(config: pytest.Config) -> bool:
    """The controller of a pytest-xdist run (``-n N``): its workers run the tests."""
    return bool(config.getoption("numprocesses", None)) and not hasattr(config, "workerinput")


_CONTROLLER_NODE = pytest.StashKey[es_launcher.Node]()


def pytest_unconfigure(config: pytest.Config) -> None:
    """The node the controller of a ``-n N`` run started (``pytest_sessionstart``), stopped once
    every worker is done with it, the loads they shared dropped first."""
    node = config.stash.get(_CONTROLLER_NODE, None)
    if node is None:
        return
    end_of_run(node.url)
    if node.started_here:
        es_launcher.stop()


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist starts its workers
def pytest_sessionstart(session: pytest.Session) -> None:
    """Print the random order's seed even under -q: a failure that depends on the order can be
    replayed with ``pytest -p randomly --randomly-seed=N``. Under ``-n N`` the controller starts
    the one node before the workers exist: each worker's ``es_url`` then finds it running
    (es_launcher's state file) instead of starting one of its own; and the folder in which they
    share the session's loads (tests.shared_loads) is made."""
    if _distributed(session.config):
        session.config.stash[_CONTROLLER_NODE] = es_launcher.start()
        start_of_run()
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    seed = session.config.getoption("randomly_seed", default=None)
    if reporter is not None and seed is not None:
        reporter.write_line(f"test order: random, --randomly-seed={seed}")
