"""The per-prefix job lock against a real node: held, refused, taken over when stale, heartbeat,
and lost under a running job."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import socket
import sys
from dataclasses import asdict
from datetime import UTC, datetime, timedelta

import pytest
from elasticsearch import AsyncElasticsearch

from core.es_client import make_client
from core.index_contract import IndexNames
from devtools.tcp_proxy import TcpProxy
from indexer.lock import LockHeld, LockInfo, LockLost, current_lock, job_lock
from indexer.versions import owner

BOUND_S = 300.0  # a guard against a hang, never reached by a working lock: not a measure of speed


async def put_lock(
    es: AsyncElasticsearch, names: IndexNames, holder_owner: str, heartbeat_age_s: float = 0.0
) -> LockInfo:
    """Another job's lock document, written directly (as that job would have)."""
    beat = datetime.now(UTC) - timedelta(seconds=heartbeat_age_s)
    stamp = beat.isoformat(timespec="seconds")
    holder = LockInfo("load", "npidata_pfile_20261116.csv", holder_owner, stamp, stamp)
    await es.index(index=names.lock(), id="lock", document=asdict(holder), refresh=True)
    return holder


class _Logged(logging.Handler):
    """Sets ``event`` when a record with ``text`` is logged."""

    def __init__(self, text: str, event: asyncio.Event) -> None:
        super().__init__()
        self.text, self.event = text, event

    def emit(self, record: logging.LogRecord) -> None:
        if self.text in record.getMessage():
            self.event.set()


async def dead_pid() -> int:
    child = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")
    await asyncio.wait_for(child.wait(), BOUND_S)
    return child.pid


async def changed(es: AsyncElasticsearch, names: IndexNames, seen: LockInfo | None) -> LockInfo:
    """The lock once it is no longer ``seen`` (polled); a failure if it never changes."""
    try:
        async with asyncio.timeout(BOUND_S):
            while True:
                found = await current_lock(es, names)
                if found is not None and found != seen:
                    return found
                await asyncio.sleep(0.05)
    except TimeoutError:
        pytest.fail(f"the lock stayed {seen}")


async def test_a_free_prefix_is_locked_while_the_job_runs_and_free_after(
    es: AsyncElasticsearch, index_names: IndexNames
) -> None:
    assert await current_lock(es, index_names) is None  # not even the lock index exists
    async with job_lock(es, index_names, "update", "npidata_weekly.csv") as previous:
        assert previous is None
        held = await current_lock(es, index_names)
        assert held is not None
        assert (held.job, held.detail, held.owner) == ("update", "npidata_weekly.csv", owner())
    assert await current_lock(es, index_names) is None


async def test_the_lock_is_released_when_the_job_fails(
    es: AsyncElasticsearch, index_names: IndexNames
) -> None:
    with pytest.raises(ValueError, match="bad row"):
        async with job_lock(es, index_names, "load", "npidata_pfile.csv"):
            raise ValueError("bad row")
    assert await current_lock(es, index_names) is None
    async with job_lock(es, index_names, "load", "npidata_pfile.csv") as previous:
        assert previous is None


async def test_a_second_job_on_a_locked_prefix_is_refused_naming_the_running_one(
    es: AsyncElasticsearch, index_names: IndexNames
) -> None:
    async with job_lock(es, index_names, "update", "npidata_weekly.csv"):
        with pytest.raises(LockHeld) as refused:
            async with job_lock(es, index_names, "load", "npidata_pfile.csv"):
                pytest.fail("two jobs ran at once")
        message = str(refused.value)
        assert f"update of npidata_weekly.csv by {owner()}" in message
        assert "Wait for it" in message and "taken over automatically" in message
        held = await current_lock(es, index_names)
        assert held is not None and held.job == "update"  # the refused job left it alone


async def test_jobs_on_different_prefixes_do_not_conflict(
    es: AsyncElasticsearch, index_names: IndexNames
) -> None:
    other = IndexNames(f"{index_names.prefix}-other")  # dropped with index_names' indices
    async with (
        job_lock(es, index_names, "load", "a.csv") as first,
        job_lock(es, other, "load", "b.csv") as second,
    ):
        assert first is None and second is None


async def test_the_lock_of_a_dead_process_on_this_host_is_taken_over(
    es: AsyncElasticsearch, index_names: IndexNames
) -> None:
    stale = await put_lock(es, index_names, f"{socket.gethostname()}:{await dead_pid()}")
    async with job_lock(es, index_names, "update", "npidata_weekly.csv") as previous:
        assert previous == stale  # its heartbeat is fresh: the dead pid alone decided
        held = await current_lock(es, index_names)
        assert held is not None and held.owner == owner()
    assert await current_lock(es, index_names) is None


async def test_the_lock_of_another_host_is_taken_over_once_its_heartbeat_is_old(
    es: AsyncElasticsearch, index_names: IndexNames
) -> None:
    stale = await put_lock(es, index_names, "other-container:1", heartbeat_age_s=600)
    async with job_lock(es, index_names, "update", "npidata_weekly.csv") as previous:
        assert previous == stale
        assert previous is not None
        described = previous.describe()
        # The age is read from the clock when described: at least the 600 s written, at most
        # the age by the test's clock afterwards (however long the steps between took).
        since = datetime.now(UTC) - datetime.fromisoformat(stale.heartbeat)
        found = re.fullmatch(
            r"load of npidata_pfile_20261116\.csv by other-container:1 since \S+ "
            r"\(heartbeat ([0-9]+) s ago\)",
            described,
        )
        assert found is not None, described
        assert 600 <= int(found[1]) <= int(f"{since.total_seconds():.0f}")


async def test_the_lock_of_another_host_with_a_fresh_heartbeat_is_kept(
    es: AsyncElasticsearch, index_names: IndexNames
) -> None:
    live = await put_lock(es, index_names, "other-container:1", heartbeat_age_s=5)
    with pytest.raises(LockHeld, match=r"load of npidata_pfile_20261116\.csv by other-container:1"):
        async with job_lock(es, index_names, "update", "npidata_weekly.csv"):
            pytest.fail("took over a live lock")
    assert await current_lock(es, index_names) == live


@pytest.mark.parametrize("stale", [True, False], ids=["stale lock", "free prefix"])
async def test_of_jobs_starting_at_once_exactly_one_wins(
    es: AsyncElasticsearch, index_names: IndexNames, stale: bool
) -> None:
    if stale:
        await put_lock(es, index_names, "other-container:1", heartbeat_age_s=600)
    winner_runs = asyncio.Event()
    finish = asyncio.Event()

    async def contender() -> LockInfo | None:
        async with job_lock(es, index_names, "update", "npidata_weekly.csv") as previous:
            winner_runs.set()
            await finish.wait()
            return previous

    tasks = [asyncio.create_task(contender()) for _ in range(5)]
    refusal = re.escape(f"update of npidata_weekly.csv by {owner()}")
    try:
        settled = asyncio.as_completed(tasks, timeout=BOUND_S)
        for _ in range(4):  # the winner holds on until told to finish: the first four lost
            with pytest.raises(LockHeld, match=refusal):
                await next(settled)
        await asyncio.wait_for(winner_runs.wait(), BOUND_S)
        finish.set()
        previous = await next(settled)
        assert (previous is not None) == stale
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks)
    assert await current_lock(es, index_names) is None


async def test_the_heartbeat_advances_while_the_job_runs(
    es: AsyncElasticsearch, index_names: IndexNames
) -> None:
    async with job_lock(es, index_names, "load", "npidata_pfile.csv", heartbeat_s=0.1):
        first = await current_lock(es, index_names)
        later = await changed(es, index_names, first)
        assert first is not None and later.heartbeat > first.heartbeat
        assert (later.started, later.owner) == (first.started, first.owner)
        assert await changed(es, index_names, later)  # and again: it kept its seq_no


async def test_a_lock_taken_over_under_a_running_job_stops_it(
    es: AsyncElasticsearch, index_names: IndexNames
) -> None:
    body_cancelled = False
    with pytest.raises(LockLost, match=r"now held by load of .* by other-container:9"):
        async with (
            asyncio.timeout(BOUND_S),
            job_lock(es, index_names, "update", "npidata_weekly.csv", heartbeat_s=0.1),
        ):
            await put_lock(es, index_names, "other-container:9")
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                body_cancelled = True
                raise
    assert body_cancelled
    task = asyncio.current_task()
    assert task is not None and task.cancelling() == 0  # the lock withdrew its cancellation
    held = await current_lock(es, index_names)
    assert held is not None and held.owner == "other-container:9"  # not released by the loser


async def test_a_lock_deleted_under_a_running_job_stops_it_even_if_it_ignores_cancelling(
    es: AsyncElasticsearch, index_names: IndexNames
) -> None:
    with pytest.raises(LockLost, match="deleted"):
        async with (
            asyncio.timeout(BOUND_S),
            job_lock(es, index_names, "update", "npidata_weekly.csv", heartbeat_s=0.1),
        ):
            await es.delete(index=index_names.lock(), id="lock", refresh=True)
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(60)


async def test_a_heartbeat_failing_for_a_moment_is_retried(
    es: AsyncElasticsearch,
    es_proxy: TcpProxy,
    index_names: IndexNames,
    caplog: pytest.LogCaptureFixture,
) -> None:
    proxied = make_client(es_proxy.url, max_retries=0)
    failed_beat = asyncio.Event()
    watcher = _Logged("lock heartbeat failed, retrying", failed_beat)
    logging.getLogger("indexer.lock").addHandler(watcher)
    try:
        async with job_lock(proxied, index_names, "update", "weekly.csv", heartbeat_s=0.1):
            es_proxy.set_mode("reset")
            # The node stays gone until a beat has failed (logged), however long that takes.
            await asyncio.wait_for(failed_beat.wait(), BOUND_S)
            es_proxy.set_mode("forward")
            later = await changed(es, index_names, await current_lock(es, index_names))
            assert later.owner == owner()
        assert await current_lock(es, index_names) is None
    finally:
        logging.getLogger("indexer.lock").removeHandler(watcher)
        await proxied.close()
    assert "lock heartbeat failed, retrying" in caplog.text


async def test_a_job_that_cannot_beat_for_longer_than_the_stale_time_is_stopped(
    es: AsyncElasticsearch, es_proxy: TcpProxy, index_names: IndexNames
) -> None:
    proxied = make_client(es_proxy.url, max_retries=0)
    try:
        with pytest.raises(LockLost, match="no heartbeat could be written"):
            async with (
                asyncio.timeout(BOUND_S),
                job_lock(
                    proxied, index_names, "update", "w.csv", heartbeat_s=0.1, stale_after_s=0.5
                ),
            ):
                es_proxy.set_mode("reset")
                await asyncio.sleep(60)
    finally:
        await proxied.close()
    async with job_lock(es, index_names, "load", "next.csv", stale_after_s=0.5) as previous:
        assert previous is not None and previous.detail == "w.csv"  # left behind, then taken
