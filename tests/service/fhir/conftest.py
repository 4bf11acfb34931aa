"""The NPPES sample and the Plan-Net export loaded once per session under a random prefix (as
`provider-indexer load --source-dir data/sample --plan-net data/sample/plannet --plan-net-name
ri` does), read-only (write-blocked), and served by the shared ``api`` fixture."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import INDEX_KINDS, IndexNames
from indexer.load.run import LoadOptions, SourceFiles, load
from tests import fhir_validator
from tests.conftest import SAMPLE_DIR
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


@dataclass(frozen=True)
class ServedValidation:
    """The validation of everything the FHIR tests' index serves, running in its own process
    (tests.validate_served) from the first FHIR test on; the validator test waits for it."""

    process: subprocess.Popen[bytes]
    out: Path


@pytest.fixture(scope="session", autouse=True)
def served_validation(
    fhir_loaded: IndexNames, es_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServedValidation | None]:
    if fhir_validator.available() is not None:  # the validator test says why (needs())
        yield None
        return
    out = tmp_path_factory.mktemp("validation") / "verdicts.json"
    command = [sys.executable, "-m", "tests.validate_served", "--es-url", es_url]
    command += ["--prefix", fhir_loaded.prefix, "--out", str(out)]
    process = subprocess.Popen(command, cwd=SAMPLE_DIR.parent.parent)
    yield ServedValidation(process, out)
    if process.poll() is None:
        process.kill()
        process.wait()
