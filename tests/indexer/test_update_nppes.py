"""``update --nppes``: a weekly NPPES file made by the generator from the sample, applied in
place; every row kind checked against the file, against the API, and against a full load of
the merged file."""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_scan

import tests.conftest as shared
from core.changes import unstamped
from core.index_contract import IndexKind, IndexNames
from indexer.generate.weekly import UpdateCounts, UpdateStats, generate_update
from indexer.load.run import LoadOptions, SourceFiles, load
from indexer.lock import LockHeld, job_lock
from indexer.update.live_version import live_version
from indexer.update.nppes import update_nppes
from indexer.update.options import UpdateOptions
from tests.indexer.update_files import merge
from tests.source_rows import nppes_rows

WEEK = UpdateCounts(new=40, changed=300, deactivated=30, reactivated=10, stale=10, invalid=5)


def _options(names: IndexNames, tmp_path: Path, scored_on: date | None = None) -> UpdateOptions:
    return UpdateOptions(names=names, reject_file=tmp_path / "r.csv", scored_on=scored_on)


@pytest.fixture
def week1(tmp_path: Path, sample_sources: SourceFiles) -> UpdateStats:
    return generate_update(sample_sources.nppes_file, tmp_path / "week1.csv", WEEK, seed=7)


@pytest.fixture
def served_names(sample_copy: shared.SampleCopy) -> IndexNames:
    """The service (``api``) reads this test's copy of the sample, the one the update changes."""
    return sample_copy.names


async def _get(api: tuple[shared.ApiClient, dict[str, str]], npi: str) -> tuple[int, Any, str]:
    client, headers = api
    response = await client.get(f"/v2/providers/{npi}", headers=headers)
    body = await response.json()
    return response.status, body, response.headers.get("ETag", "")


async def _sources(es: AsyncElasticsearch, names: IndexNames, kind: IndexKind) -> dict[str, Any]:
    """Every document of an alias as search sees it (refreshed), by id."""
    return {
        hit["_id"]: hit["_source"]
        async for hit in async_scan(es, index=names.alias(kind), query={"query": {"match_all": {}}})
    }


async def test_every_row_kind_lands_as_the_file_says(
    es: AsyncElasticsearch,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    week1: UpdateStats,
    api: shared.ApiClient,
    auth_header: dict[str, str],
    tmp_path: Path,
) -> None:
    service = (api, auth_header)
    untouched = next(
        row["NPI"]
        for row in nppes_rows(sample_sources.nppes_file)
        if row["Entity Type Code"] and row["NPI"] not in {r["NPI"] for r in nppes_rows(week1.out)}
    )
    before = {npi: await _get(service, npi) for npi in (*week1.npis.changed, *week1.npis.stale)}
    before[untouched] = await _get(service, untouched)

    report = await update_nppes(es, week1.out, _options(index_names, tmp_path))

    written = week1.written
    assert dict(report.outcomes) == {
        "added": written.new,
        "changed": written.changed,
        "reactivated": written.reactivated,
        "deactivated": written.deactivated,
        "stale": written.stale,
    }
    assert dict(report.rejected) == {"invalid_npi": written.invalid}
    assert report.removed == written.deactivated and report.accounted
    rejected = [row for row in nppes_rows(tmp_path / "r.csv")]
    assert sorted(r["npi"] for r in rejected) == sorted(week1.npis.invalid)

    rows = {row["NPI"]: row for row in nppes_rows(week1.out)}
    week_day = week1.week.isoformat()
    for npi in (*week1.npis.new, *week1.npis.reactivated, *week1.npis.changed):
        status, body, etag = await _get(service, npi)
        assert status == 200 and body["lastUpdated"] == week_day, npi
        last = rows[npi]["Provider Last Name (Legal Name)"] or None
        organization = rows[npi]["Provider Organization Name (Legal Business Name)"] or None
        assert (body["lastName"], body["organizationName"]) == (last, organization)
        if npi in before:
            assert etag != before[npi][2]
    for npi in week1.npis.deactivated:
        assert (await _get(service, npi))[0] == 404
    for npi in (*week1.npis.stale, untouched):
        assert await _get(service, npi) == before[npi]  # same body, same ETag

    # Search sees the same providers as the lookups, after the update's one refresh.
    searched = await _sources(es, index_names, "search")
    assert set(week1.npis.new) | set(week1.npis.reactivated) <= set(searched)
    assert not set(week1.npis.deactivated) & set(searched)
    for npi in week1.npis.changed:
        assert searched[npi]["provider"]["lastUpdated"] == week_day


async def test_a_file_applied_twice_changes_nothing_the_second_time(
    es: AsyncElasticsearch,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    week1: UpdateStats,
    tmp_path: Path,
    sample_copy: shared.SampleCopy,
) -> None:
    await update_nppes(es, week1.out, _options(index_names, tmp_path))
    live = await live_version(es, index_names)

    async def versions_of(kind: IndexKind) -> dict[str, int]:
        stats = await es.indices.stats(index=live.indices[kind], metric="indexing")
        return {"index_total": stats["_all"]["primaries"]["indexing"]["index_total"]}

    writes = {kind: await versions_of(kind) for kind in ("providers", "search")}
    again = await update_nppes(es, week1.out, _options(index_names, tmp_path))

    assert not again.changed_anything and again.removed == 0
    assert again.outcomes["stale"] == week1.written.stale
    assert again.outcomes["unchanged"] == week1.written.total - week1.written.stale - 5
    assert {kind: await versions_of(kind) for kind in ("providers", "search")} == writes
    updates = (await live_version(es, index_names)).updates
    assert [u["file"] for u in updates] == ["week1.csv", "week1.csv"]
    assert updates[0]["outcomes"]["changed"] == week1.written.changed


async def test_updates_equal_a_full_load_of_the_merged_file(
    es: AsyncElasticsearch,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    week1: UpdateStats,
    tmp_path: Path,
    sample_copy: shared.SampleCopy,
) -> None:
    week2 = generate_update(sample_sources.nppes_file, tmp_path / "week2.csv", WEEK, seed=8)
    # Every score for the copy's day, whatever day this runs on (midnight may fall between).
    day = sample_copy.scored_on
    for stats in (week1, week2):
        await update_nppes(es, stats.out, _options(index_names, tmp_path, day))
    merged = merge(
        sample_sources.nppes_file, [week1.out, week2.out], tmp_path / "npidata_merged.csv"
    )
    full = IndexNames(f"{index_names.prefix}-full")  # dropped with the test's prefix
    sources = dataclasses.replace(sample_sources, nppes=merged)
    await load(es, sources, LoadOptions(names=full, keep_versions=1, scored_on=day))

    for kind in ("providers", "search"):
        updated, loaded = await _sources(es, index_names, kind), await _sources(es, full, kind)
        assert set(updated) == set(loaded), kind
        # Equal but for when each changed (core.changes: the load's instant, or the update's).
        different = [npi for npi in loaded if unstamped(updated[npi]) != unstamped(loaded[npi])]
        assert different == [], f"{kind}: {len(different)} providers differ, e.g. {different[:3]}"
    # Not vacuous: the changed providers include some joined with Doctors & Clinicians rows,
    # hospitals and plan networks, which the update had to rebuild.
    changed = [
        loaded["provider"]
        for npi, loaded in (await _sources(es, full, "search")).items()
        if npi in set(week1.npis.changed) | set(week2.npis.changed)
    ]
    assert any(p["hospitalAffiliations"] or p["groupAffiliations"] for p in changed)
    searched = await _sources(es, full, "search")
    assert any(searched[p["npis"][0]]["networks"] for p in changed)


async def test_an_update_refuses_to_run_beside_another_job_and_names_it(
    es: AsyncElasticsearch,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    week1: UpdateStats,
    tmp_path: Path,
    sample_copy: shared.SampleCopy,
) -> None:
    async with job_lock(es, index_names, "load", "npidata_pfile_next.csv"):
        with pytest.raises(LockHeld, match=r"load of npidata_pfile_next\.csv by .*:[0-9]+"):
            await update_nppes(es, week1.out, _options(index_names, tmp_path))
    assert (await live_version(es, index_names)).updates == []
