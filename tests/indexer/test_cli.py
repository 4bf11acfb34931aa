"""``provider-indexer load``, ``status`` and ``rollback`` as an operator runs them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from elasticsearch import AsyncElasticsearch

from core.index_contract import INDEX_KINDS, IndexNames
from core.publication import PUBLICATION_ID
from indexer import versions
from tests.conftest import SampleCopy
from tests.indexer.conftest import indexer_process


async def _run(es_url: str, names: IndexNames, *args: str) -> str:
    process = indexer_process(es_url, names, *args)
    # A guard against a hang, not a measure of speed.
    stdout, stderr = await asyncio.to_thread(process.communicate, timeout=600)
    assert process.returncode == 0, stderr
    return stdout


async def test_load_status_rollback(
    es: AsyncElasticsearch,
    es_url: str,
    index_names: IndexNames,
    sample_copy: SampleCopy,
    tmp_path: Path,
) -> None:
    """Over a served version (the session's load, cloned), a load from the command line, its
    status, and a rollback to the version before it."""
    first = sample_copy.report.version
    report_path = tmp_path / "report.json"
    shown = await _run(
        es_url, index_names, "load", "--source-dir", "data/sample",
        "--report-json", str(report_path),
    )  # fmt: skip
    report = json.loads(report_path.read_text())
    assert report["accounted"] and report["rows_read"] == 3989
    assert "all accounted    yes" in shown and "peak RSS" in shown
    second = await versions.current_version(es, index_names)
    assert second == report["version"] != first

    lines = (await _run(es_url, index_names, "status")).splitlines()
    status, live = lines[: len(INDEX_KINDS)], lines[len(INDEX_KINDS) :]
    for line, kind in zip(status, INDEX_KINDS, strict=True):
        alias, arrow, index, count, docs, loaded = line.split()
        assert (alias, arrow, docs) == (index_names.alias(kind), "->", "docs")
        assert index == index_names.versioned(kind, str(second))
        assert int(count) == report["documents"][kind] and loaded.startswith("20")
    assert live[0].startswith(f"live version       {second}, loaded 20")
    assert live[0].endswith("from npidata_pfile_sample.csv.gz")
    assert live[1:] == [
        "updates applied    none since the load",
        "change feed        empty (no update has recorded a change)",
        "webhooks           no watch",
        "running job        none",
    ]

    rolled = await _run(es_url, index_names, "rollback")
    # Both versions were loaded from the same files: the way back changes nothing.
    assert rolled.splitlines() == [
        f"rolled back to version {first}",
        "change feed        0 changes back to it",
    ]
    assert await versions.current_version(es, index_names) == first
    published = await es.get(index=index_names.publication(), id=PUBLICATION_ID)
    assert (published["_source"]["version"], published["_source"]["job"]) == (first, "rollback")
