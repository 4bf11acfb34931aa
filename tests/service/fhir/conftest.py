"""The NPPES sample and the Plan-Net export loaded once per module under a random prefix (as
`provider-indexer load --source-dir data/sample --plan-net data/sample/plannet --plan-net-name
ri` does), and the service built on them."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from indexer.load.run import LoadOptions, SourceFiles, load
from service.web.app import create_app
from service.web.auth import mint_token
from service.web.settings import ALL_SCOPES, Settings
from tests.conftest import SAMPLE_TODAY, ApiClient, ClientFactory, settings_for
from tests.plan_net_rows import PLAN_NET_DIR

PLAN_NET_NAME = "ri"


@pytest.fixture(scope="module")
async def fhir_loaded(
    es: AsyncElasticsearch, sample_sources: SourceFiles
) -> AsyncIterator[IndexNames]:
    names = IndexNames(f"test-fhir-{uuid.uuid4().hex[:8]}")
    sources = SourceFiles(
        **{**sample_sources.__dict__, "plan_net": PLAN_NET_DIR, "plan_net_name": PLAN_NET_NAME}
    )
    try:
        report = await load(es, sources, LoadOptions(names=names))
        assert report.accounted
        yield names
    finally:
        await es.indices.delete(
            index=f"{names.prefix}-*", ignore_unavailable=True, allow_no_indices=True
        )


@pytest.fixture
def fhir_settings(es_url: str, fhir_loaded: IndexNames) -> Settings:
    # No rate limit: a test walks a search through up to a hundred pages at once.
    return settings_for(es_url, fhir_loaded).model_copy(update={"rate_limit_per_s": 0})


@pytest.fixture
async def api(aiohttp_client: ClientFactory, fhir_settings: Settings) -> ApiClient:
    return await aiohttp_client(create_app(fhir_settings, today=lambda: SAMPLE_TODAY))


@pytest.fixture
def token_header(fhir_settings: Settings) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_token(fhir_settings, scopes=ALL_SCOPES)}"}
