"""The NPPES sample with a Plan-Net export of it that the generator filled with known faults
(``generate-plan-net --faults default``), loaded once per session under a random prefix,
read-only, and served by the shared ``api`` fixture."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import INDEX_KINDS, IndexNames
from indexer.generate.plan_net import generate_plan_net
from indexer.generate.plan_net_faults import DEFAULT_RATES
from indexer.load.run import LoadOptions, SourceFiles, load

DIRECTORY = "faulty"


@dataclasses.dataclass(frozen=True)
class TrustLoad:
    names: IndexNames
    export: Path
    truth: Path


@pytest.fixture(scope="session")
async def trust_loaded(
    es: AsyncElasticsearch, sample_sources: SourceFiles, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[TrustLoad]:
    names = IndexNames(f"test-trust-{uuid.uuid4().hex[:8]}")
    folder = tmp_path_factory.mktemp("trust")
    export, truth = folder / DIRECTORY, folder / "truth.json"
    generate_plan_net(
        sample_sources.nppes_file,
        export,
        seed=11,
        plans=sample_sources.plans,
        nucc=sample_sources.nucc,
        faults=DEFAULT_RATES,
        truth=truth,
    )
    sources = dataclasses.replace(sample_sources, plan_net=export, plan_net_name=DIRECTORY)
    try:
        report = await load(es, sources, LoadOptions(names=names))
        assert report.accounted
        indices = ",".join(names.versioned(kind, report.version) for kind in INDEX_KINDS)
        await es.indices.put_settings(index=indices, settings={"index.blocks.write": True})
        yield TrustLoad(names, export, truth)
    finally:
        await es.indices.delete(
            index=f"{names.prefix}-*", ignore_unavailable=True, allow_no_indices=True
        )


@pytest.fixture
def served_names(trust_loaded: TrustLoad) -> IndexNames:
    """The trust tests' ``api`` serves the sample with its faulty Plan-Net export."""
    return trust_loaded.names
