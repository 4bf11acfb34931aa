"""Service processes (`provider-directory serve`) share the delivery work through leases in
Elasticsearch: two of them deliver each batch once, and a process killed mid-delivery loses
nothing (another sends the same batch once the lease has run out). Only loopback is reached."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiohttp
from elasticsearch import AsyncElasticsearch

import tests.conftest as shared
from core.index_contract import IndexNames
from service.watches.delivery import Deliverer
from service.web.settings import Settings
from tests.service.watches.receiver import HANG, Receiver, receiving
from tests.service.watches.test_webhook_delivery import Client, change, record, verified

REPO = Path(__file__).resolve().parents[3]
GUARD_S = 600.0  # against a hang, not a measure of speed


@asynccontextmanager
async def service_process(
    es_url: str, names: IndexNames, **env: str
) -> AsyncIterator[asyncio.subprocess.Process]:
    """A service process on a loopback socket of its own, its delivery loop running."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        variables = os.environ | {
            "ELASTICSEARCH_URL": es_url,
            "PD_ENVIRONMENT": "test",
            "PD_JWT_SECRET": shared.TEST_SECRET,
            "PD_INDEX_PREFIX": names.prefix,
            "PD_ES_REQUEST_TIMEOUT_S": str(shared.TEST_ES_TIMEOUT_S),
            "PD_WEBHOOK_ALLOW": "127.0.0.1",
            "PD_WEBHOOK_POLL_S": "0.1",
            **env,
        }
        process = await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "service.cli", "serve", "--fd", str(sock.fileno())),
            env=variables,
            cwd=REPO,
            pass_fds=(sock.fileno(),),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        try:
            await asyncio.wait_for(_alive(base, process), GUARD_S)
            yield process
        finally:
            if process.returncode is None:
                process.terminate()
            await process.wait()


async def _alive(base: str, process: asyncio.subprocess.Process) -> None:
    async with aiohttp.ClientSession() as session:
        while process.returncode is None:
            try:
                async with session.get(f"{base}/healthz") as answer:
                    if answer.status == 200:
                        return
            except aiohttp.ClientConnectionError:
                pass
            await asyncio.sleep(0.05)
    raise AssertionError(f"the service exited with {process.returncode}")


def _npis(count: int) -> list[str]:
    return [f"19{n:08d}" for n in range(count)]


async def test_two_processes_deliver_each_batch_once(
    serve: shared.Serve,
    es: AsyncElasticsearch,
    es_url: str,
    index_names: IndexNames,
    settings: Settings,
) -> None:
    client = Client(await serve(settings), settings)
    npis = _npis(20)
    async with receiving(Receiver()) as receiver:
        made = {npi: await client.watch(f"{receiver.base}/{npi}", npis=[npi]) for npi in npis}
        async with (
            service_process(es_url, index_names, PD_WEBHOOK_CONCURRENCY="4"),
            service_process(es_url, index_names, PD_WEBHOOK_CONCURRENCY="4"),
        ):
            await record(es, index_names, [change("location_changed", npi) for npi in npis])
            await receiver.until(len(npis), GUARD_S)
            for watch in made.values():
                await _delivered(client, watch["id"])
    paths = sorted(got.path for got in receiver.got)
    assert paths == sorted(f"/{npi}" for npi in npis)  # each once
    for got in receiver.got:
        npi = got.path[1:]
        payload = verified(made[npi]["secret"], got)
        assert [(c["kind"], c["npi"]) for c in payload["data"]["changes"]] == [
            ("location_changed", npi)
        ]


async def _delivered(client: Client, watch_id: str) -> None:
    """Until the watch's batch is recorded delivered."""

    async def wait() -> None:
        path = f"/v2/watches/{watch_id}/deliveries"
        while True:
            attempts = (await client.get(path))["deliveries"]
            if any(attempt["outcome"] == "delivered" for attempt in attempts):
                return
            await asyncio.sleep(0.05)

    await asyncio.wait_for(wait(), GUARD_S)


async def test_a_process_killed_mid_delivery_loses_nothing(
    serve: shared.Serve,
    es: AsyncElasticsearch,
    es_url: str,
    index_names: IndexNames,
    settings: Settings,
) -> None:
    client = Client(await serve(settings), settings)
    lease_s = 30.0
    async with receiving(Receiver(script=[HANG], otherwise=200)) as receiver:
        made = await client.watch(receiver.base, npis=["1003000126"])
        async with service_process(
            es_url, index_names, PD_WEBHOOK_LEASE_S=str(lease_s), PD_WEBHOOK_TIMEOUT_S="20"
        ) as process:
            await record(es, index_names, [change("deactivated", "1003000126")])
            await receiver.until(1, GUARD_S)  # the process is sending, the receiver holds it
            process.send_signal(signal.SIGKILL)
            await process.wait()
        other = Deliverer(es, index_names, settings)
        try:
            # The dead process's lease still holds the watch: nobody sends.
            assert (await other.run_once()).sent == 0
            after_lease = datetime.now(UTC) + timedelta(seconds=lease_s + 1)
            assert (await other.run_once(after_lease)).sent == 1
        finally:
            await other.close()
    first, second = receiver.got
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    assert verified(made["secret"], first)["data"] == verified(made["secret"], second)["data"]
    watch = await client.get(f"/v2/watches/{made['id']}/deliveries")
    assert [(d["attempt"], d["outcome"]) for d in watch["deliveries"]] == [(1, "delivered")]
