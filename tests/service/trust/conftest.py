"""The NPPES sample with a Plan-Net export of it that the generator filled with known faults
(``generate-plan-net --faults default``), loaded once per session under a random prefix,
read-only, and served by the shared ``api`` fixture."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from indexer.generate.plan_net import generate_plan_net
from indexer.generate.plan_net_faults import DEFAULT_RATES
from indexer.load.run import SourceFiles
from tests.conftest import read_only_load

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
    async with read_only_load(es, sources, "trust") as (names, _):
        yield TrustLoad(names, export, truth)


@pytest.fixture
def served_names(trust_loaded: TrustLoad) -> IndexNames:
    """The trust tests' ``api`` serves the sample with its faulty Plan-Net export."""
    return trust_loaded.names
