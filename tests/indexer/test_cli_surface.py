"""`provider-indexer` as an operator meets it when things are not in order, and the commands and
flags the main CLI test does not use: exit codes, messages, and what each flag changes."""

from __future__ import annotations

import asyncio
import csv
from pathlib import Path

from elasticsearch import AsyncElasticsearch

from core.index_contract import INDEX_KINDS, IndexNames
from core.npi import is_valid_npi
from indexer import versions
from indexer.lock import current_lock
from tests.conftest import SAMPLE_DIR, SampleCopy
from tests.indexer.conftest import indexer_process
from tests.source_rows import active_rows, nppes_rows

SAMPLE_NPPES = next(SAMPLE_DIR.glob("npidata_pfile*"))


async def run(es_url: str, names: IndexNames, *args: str) -> tuple[int, str, str]:
    process = indexer_process(es_url, names, *args)
    stdout, stderr = await asyncio.to_thread(process.communicate, timeout=300)
    return process.returncode, stdout, stderr


async def test_status_of_missing_aliases_is_a_failure(es_url: str, index_names: IndexNames) -> None:
    code, stdout, _ = await run(es_url, index_names, "status")
    assert code == 1
    *lines, feed, webhooks, running = stdout.splitlines()
    assert [line.split()[0] for line in lines] == index_names.all_aliases()
    assert feed == "change feed        empty (no update has recorded a change)"
    assert webhooks == "webhooks           no watch"
    assert all("(missing)" in line and " 0 docs" in line for line in lines)
    assert running == "running job        none"


async def test_rollback_without_an_older_version_changes_nothing(
    es: AsyncElasticsearch, es_url: str, index_names: IndexNames, sample_copy: SampleCopy
) -> None:
    only = sample_copy.report.version  # the only version: the session's load, cloned
    assert await versions.current_version(es, index_names) == only
    code, _, stderr = await run(es_url, index_names, "rollback")
    assert (code, stderr.strip()) == (1, "error: no previous version to roll back to")
    assert await versions.current_version(es, index_names) == only


async def test_a_bad_or_missing_file_is_exit_1_with_the_reason(
    es: AsyncElasticsearch, es_url: str, index_names: IndexNames, tmp_path: Path
) -> None:
    bad = tmp_path / "npidata_pfile_bad.csv"
    bad.write_text("a,b\n1,2\n")
    nucc = str(next(SAMPLE_DIR.glob("nucc_taxonomy*")))
    code, _, stderr = await run(es_url, index_names, "load", "--nppes", str(bad), "--nucc", nucc)
    assert code == 1 and "not an NPPES npidata_pfile" in stderr and "Traceback" not in stderr
    missing = str(tmp_path / "nowhere.csv")
    code, _, stderr = await run(es_url, index_names, "load", "--nppes", missing, "--nucc", nucc)
    assert code == 1 and "nowhere.csv" in stderr and "Traceback" not in stderr
    code, _, stderr = await run(es_url, index_names, "load", "--nppes", str(bad))
    assert code == 1 and "give --source-dir, or --nucc with --nppes and/or --plan-net" in stderr
    # Nothing left behind: no index but the (released) lock's.
    assert set(await es.indices.get(index=f"{index_names.prefix}-*")) <= {index_names.lock()}
    assert await current_lock(es, index_names) is None


async def test_load_flags_shape_the_new_version(
    es: AsyncElasticsearch, es_url: str, index_names: IndexNames
) -> None:
    files = {
        "--nppes": SAMPLE_NPPES,
        "--nucc": next(SAMPLE_DIR.glob("nucc_taxonomy*")),
    }
    by_file = [arg for flag, path in files.items() for arg in (flag, str(path))]
    for _ in range(2):
        code, _, stderr = await run(
            es_url, index_names, "load", *by_file, "--shards", "2", "--keep-versions", "1"
        )
        assert code == 0, stderr
    [kept] = await versions.list_versions(es, index_names)  # --keep-versions 1 pruned the first
    settings = await es.indices.get_settings(index=index_names.versioned("search", kept))
    [index_settings] = settings.body.values()
    assert index_settings["settings"]["index"]["number_of_shards"] == "2"
    count = await es.count(index=index_names.alias("providers"))
    assert count["count"] == len(active_rows(SAMPLE_NPPES))  # only NPPES and NUCC were given
    assert (await es.count(index=index_names.alias("coverage")))["count"] == 0
    assert len(await es.indices.get_alias(name=f"{index_names.prefix}-*")) == len(INDEX_KINDS)


async def test_generate_without_a_source_resamples_the_bundled_sample(
    es_url: str, index_names: IndexNames, tmp_path: Path
) -> None:
    out = tmp_path / "generated.csv"
    code, _, stderr = await run(es_url, index_names, "generate", "250", "--out", str(out))
    assert code == 0, stderr
    rows = nppes_rows(out)
    assert len(rows) == 250
    assert len({r["NPI"] for r in rows}) == 250 and all(is_valid_npi(r["NPI"]) for r in rows)
    sample_names = {r["Provider Last Name (Legal Name)"] for r in nppes_rows(SAMPLE_NPPES)}
    generated_names = {r["Provider Last Name (Legal Name)"] for r in rows}
    assert generated_names <= sample_names  # resampled real rows, perturbed elsewhere


async def test_generate_coverage_from_the_command_line(
    es_url: str, index_names: IndexNames, tmp_path: Path
) -> None:
    out = tmp_path / "coverage.csv"
    plans = {
        "--plans": "medicare_plan_finder_2026_plans.csv",
        "--zip-plan": "medicare_plan_finder_2026_zip_plan.csv",
        "--plan-county": "medicare_plan_finder_2026_plan_county.csv",
    }
    args = [a for flag, name in plans.items() for a in (flag, str(SAMPLE_DIR / name))]
    code, stdout, stderr = await run(
        es_url, index_names, "generate-coverage", "--nppes", str(SAMPLE_NPPES), *args,
        "--out", str(out),
    )  # fmt: skip
    assert code == 0, stderr + stdout
    lines = out.read_text(encoding="utf-8").splitlines()
    rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    assert rows and {r["source"] for r in rows} == {"synthetic-generator-v1"}
    active = {r["NPI"] for r in active_rows(SAMPLE_NPPES)}
    assert {r["npi"] for r in rows} <= active
