"""``provider-indexer update`` as an operator runs it: killed midway and run again, refused
beside a running job, listed by ``status``, dropped by ``rollback`` with a word about it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from core.lookup_answers import stored_provider
from core.search_fields import provider_of
from indexer.cli.main import main
from indexer.generate.weekly import UpdateCounts, generate_update
from indexer.load.run import LoadOptions, SourceFiles, load
from indexer.lock import job_lock
from indexer.sources.nppes import Deactivated, read_nppes
from indexer.update.live_version import live_version
from indexer.update.nppes import update_nppes
from indexer.update.options import UpdateOptions
from tests.conftest import SampleCopy
from tests.indexer.conftest import indexer_process
from tests.indexer.holding_relay import HANG_S, HoldingRelay, until_held

WRITTEN = 3  # bulk requests an update killed midway gets through
MANY = UpdateCounts(new=200, changed=1500, deactivated=100, reactivated=0, stale=0)


async def _loaded(es: AsyncElasticsearch, names: IndexNames, sources: SourceFiles) -> None:
    await load(es, sources, LoadOptions(names=names, keep_versions=2))


async def _cli(es_url: str, names: IndexNames, *args: str) -> tuple[int, str, str]:
    process = indexer_process(es_url, names, *args)
    stdout, stderr = await asyncio.to_thread(process.communicate, timeout=HANG_S)
    return process.returncode, stdout, stderr


async def _writes(es: AsyncElasticsearch, index: str) -> int:
    stats = await es.indices.stats(index=index, metric="indexing")
    indexing = stats["_all"]["primaries"]["indexing"]
    return int(indexing["index_total"]) + int(indexing["delete_total"])


async def _disagreeing(es: AsyncElasticsearch, names: IndexNames, npis: list[str]) -> list[str]:
    """NPIs whose lookup and search documents (as written, not yet refreshed) disagree."""
    live = await live_version(es, names)
    found = {}
    for kind in ("providers", "search"):
        answer = await es.mget(index=live.indices[kind], ids=npis, realtime=True)
        found[kind] = {d["_id"]: d.get("_source") for d in answer["docs"]}
    return [
        npi
        for npi in npis
        if (stored_provider(lookup) if (lookup := found["providers"][npi]) else None)
        != (provider_of(search) if (search := found["search"][npi]) else None)
    ]


def _bulk(_method: str, path: str) -> bool:
    return path.endswith("/_bulk")


def _actions_on(index: str, bodies: list[bytes]) -> int:
    """The actions these bulk bodies hold on ``index`` (read here, apart from the indexer)."""
    count = 0
    for body in bodies:
        lines = iter(body.splitlines())
        for line in lines:
            if not line.strip():
                continue
            ((operation, meta),) = json.loads(line).items()
            count += meta.get("_index") == index
            if operation != "delete":
                next(lines, None)  # its document
    return count


async def test_an_update_killed_midway_leaves_whole_providers_and_completes_when_run_again(
    es: AsyncElasticsearch,
    es_url: str,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    tmp_path: Path,
    sample_copy: SampleCopy,
) -> None:
    week = generate_update(sample_sources.nppes_file, tmp_path / "week.csv", MANY, seed=3)
    live = await live_version(es, index_names)
    before = await _writes(es, live.indices["search"])
    # Batches of 20 rows: the update's bulk request after WRITTEN of them waits in the relay,
    # unsent, and the update is killed there.
    relay = HoldingRelay(es_url, _bulk, let_through=WRITTEN)
    await relay.start()
    try:
        process = indexer_process(
            relay.url, index_names, "update", "--nppes", str(week.out), "--batch-rows", "20"
        )
        await until_held(relay, process)
        process.kill()
        await asyncio.to_thread(process.wait)
        await relay.settled()
        forwarded = relay.forwarded_bodies
    finally:
        await relay.close()

    npis = [*week.npis.new, *week.npis.changed, *week.npis.deactivated]
    assert await _disagreeing(es, index_names, npis) == []
    written = await _writes(es, live.indices["search"]) - before
    assert written == _actions_on(live.indices["search"], forwarded) > 0
    assert written < len(npis), "the kill did not land midway"
    _, status, _ = await _cli(es_url, index_names, "status")
    assert "refresh paused" in status and "running job        update of week.csv" in status

    report = await update_nppes(es, week.out, UpdateOptions(names=index_names))
    assert report.took_over_from is not None and "update of week.csv" in report.took_over_from
    assert report.accounted and report.outcomes["unchanged"] > 0
    again = await update_nppes(es, week.out, UpdateOptions(names=index_names))
    assert not again.changed_anything
    _, status, _ = await _cli(es_url, index_names, "status")
    assert "refresh paused" not in status and "running job        none" in status


def shared_url(es: AsyncElasticsearch) -> str:
    return str(es.transport.node_pool.get().base_url)


async def test_status_lists_updates_and_rollback_says_what_it_drops(
    es: AsyncElasticsearch, es_url: str, index_names: IndexNames, sample_sources: SourceFiles,
    tmp_path: Path, sample_copy: SampleCopy,
) -> None:  # fmt: skip
    await _loaded(es, index_names, sample_sources)  # a second version over the cloned first
    week = generate_update(sample_sources.nppes_file, tmp_path / "week.csv", MANY, seed=4)
    code, out, err = await _cli(es_url, index_names, "update", "--nppes", str(week.out))
    assert code == 0, err
    assert f"  changed          {MANY.changed:,}" in out and "all accounted    yes" in out

    code, status, _ = await _cli(es_url, index_names, "status")
    assert code == 0 and "updates applied    1, oldest first:" in status
    [line] = [line for line in status.splitlines() if "week.csv" in line]
    assert f"{week.rows:,} rows" in line and f"changed {MANY.changed:,}" in line

    code, out, _ = await _cli(es_url, index_names, "rollback")
    assert code == 0 and "lost: the 1 updates applied to version" in out and "week.csv" in out


async def test_the_cli_refuses_an_update_beside_a_load_and_names_it(
    es: AsyncElasticsearch, es_url: str, index_names: IndexNames, sample_sources: SourceFiles,
    tmp_path: Path, sample_copy: SampleCopy,
) -> None:  # fmt: skip
    week = generate_update(sample_sources.nppes_file, tmp_path / "week.csv", MANY, seed=5)
    async with job_lock(es, index_names, "load", "npidata_pfile_next.csv"):
        code, _, err = await _cli(es_url, index_names, "update", "--nppes", str(week.out))
    assert code == 75 and "load of npidata_pfile_next.csv" in err and "Traceback" not in err


@pytest.mark.parametrize("flag", ["--nppes", "--coverage"])
async def test_an_update_without_a_loaded_version_says_to_load_first(
    es_url: str, index_names: IndexNames, tmp_path: Path, flag: str
) -> None:
    empty = tmp_path / "file.csv"
    empty.write_text("NPI\n")
    code, _, err = await _cli(es_url, index_names, "update", flag, str(empty))
    assert code == 1 and "run provider-indexer load" in err and "Traceback" not in err


def test_generate_update_writes_the_kinds_asked_for(tmp_path: Path) -> None:
    out = tmp_path / "week.csv.gz"
    args = ["generate-update", "--out", str(out), "--rows", "100", "--invalid", "2"]
    assert main(args) == 0
    rejected: list[str] = []
    rows = list(read_nppes(out, lambda _f, _r, _npi, why: rejected.append(why)))
    assert len(rows) == 100
    assert rejected == ["invalid_npi", "invalid_npi"]
    assert (
        sum(isinstance(row, Deactivated) for row in rows) == UpdateCounts.week(0, 100).deactivated
    )
