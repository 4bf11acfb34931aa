"""The NPPES sample and the Plan-Net export loaded once per session under a random prefix (as
`provider-indexer load --source-dir data/sample --plan-net data/sample/plannet --plan-net-name
ri` does), read-only (write-blocked), and served by the shared ``api`` fixture."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import INDEX_KINDS, IndexNames
from indexer.load.run import LoadOptions, SourceFiles, load
from tests.plan_net_rows import PLAN_NET_DIR

PLAN_NET_NAME = "ri"


@pytest.fixture(scope="session")
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
        indices = ",".join(names.versioned(kind, report.version) for kind in INDEX_KINDS)
        await es.indices.put_settings(index=indices, settings={"index.blocks.write": True})
        yield names
    finally:
        await es.indices.delete(
            index=f"{names.prefix}-*", ignore_unavailable=True, allow_no_indices=True
        )


@pytest.fixture
def served_names(fhir_loaded: IndexNames) -> IndexNames:
    """The FHIR tests' ``api`` and ``sample_settings`` serve the sample with its Plan-Net export."""
    return fhir_loaded
