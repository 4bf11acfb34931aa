"""A full load compares the version served with its own by the digests that version's load stored
(indexer.digest_store), those of the providers updates changed since read again from it: a
reload after an update records exactly the update's way back; after an update that did not
finish, the version is scanned instead. Expectations come from the update file the test writes,
never from the feed."""

from __future__ import annotations

import asyncio
from pathlib import Path

from elasticsearch import AsyncElasticsearch

import tests.conftest as shared
from indexer import digest_store
from indexer.digests import differing, scan_digests
from indexer.load.run import LoadOptions, LoadReport, SourceFiles, load
from indexer.update.nppes import update_nppes
from indexer.update.options import UpdateOptions
from tests.indexer.conftest import indexer_process
from tests.indexer.holding_relay import HANG_S, HoldingRelay, until_held
from tests.indexer.test_change_feed import PRACTICE, _feed, _told, weekly_file


async def _loaded(
    es: AsyncElasticsearch, copy: shared.SampleCopy, sources: SourceFiles, tmp_path: Path
) -> tuple[LoadOptions, LoadReport]:
    """The sample loaded again over its copy (which has no stored digests): a version whose
    load stored them; and the options to load it by again."""
    options = LoadOptions(
        names=copy.names, reject_file=tmp_path / "rejects.csv", scored_on=copy.scored_on
    )
    return options, await load(es, sources, options)


async def test_a_reload_after_an_update_records_its_way_back_from_the_stored_digests(
    serve: shared.Serve,
    es: AsyncElasticsearch,
    es_url: str,
    sample_copy: shared.SampleCopy,
    sample_sources: SourceFiles,
    tmp_path: Path,
) -> None:
    names, day = sample_copy.names, sample_copy.scored_on
    options, first = await _loaded(es, sample_copy, sample_sources, tmp_path)
    # The copy of the session's sample was made without its load: nothing stored to read.
    assert (first.served_digests, first.changes_recorded) == ("scanned", 0)
    # What it stored is what its documents serve.
    stored = await digest_store.read(es, names, first.version)
    made = await scan_digests(es, names.versioned("search", first.version))
    assert stored is not None and len(made) == first.documents["search"] == len(stored.digests)
    assert differing(made, stored.digests) == []
    path, gone, moving = weekly_file(sample_sources, tmp_path, "12 ELSEWHERE AVE", skip=2)
    weekly = UpdateOptions(names=names, reject_file=tmp_path / "update.csv", scored_on=day)
    assert (await update_nppes(es, path, weekly)).outcomes == {"deactivated": 1, "changed": 1}
    feed = await _feed(serve, es_url, sample_copy)
    _, start = await feed.every()

    again = await load(es, sample_sources, options)

    assert again.served_digests == "stored"
    back, _ = await feed.every(since=start)
    assert _told(back) == sorted([
        ("location_added", gone["NPI"], None, None),
        ("location_changed", moving["NPI"], None, None),
    ])  # fmt: skip
    move = next(c for c in back if c["kind"] == "location_changed")
    assert move["before"]["address"]["line1"] == "12 ELSEWHERE AVE"
    assert move["after"]["address"]["line1"] == moving[PRACTICE]
    assert again.changes_recorded == len(back)


async def test_after_an_update_killed_midway_the_version_is_scanned(
    es: AsyncElasticsearch,
    es_url: str,
    sample_copy: shared.SampleCopy,
    sample_sources: SourceFiles,
    tmp_path: Path,
) -> None:
    names = sample_copy.names
    options, _ = await _loaded(es, sample_copy, sample_sources, tmp_path)
    path, _, _ = weekly_file(sample_sources, tmp_path, "12 ELSEWHERE AVE", skip=2)
    # The update's process is killed as it sends its first writes.
    relay = HoldingRelay(es_url, lambda _method, at: at.endswith("/_bulk"))
    await relay.start()
    try:
        process = indexer_process(
            relay.url, names, "update", "--nppes", str(path), "--reject-file", str(tmp_path / "u")
        )
        await until_held(relay, process)
        process.kill()
        await asyncio.to_thread(process.communicate, timeout=HANG_S)
    finally:
        await relay.close()

    again = await load(es, sample_sources, options)

    assert (again.served_digests, again.changes_recorded) == ("scanned", 0)
