"""Outage fault harness: how long the service takes to answer 503 when Elasticsearch goes away or
hangs, and to answer 200 again when it comes back, beside a bare Elasticsearch client through the
same proxy (the baseline: how long the failure takes to surface at all).

The service runs in-process with its production settings (0.9 s request timeout, one retry)
behind devtools/tcp_proxy.py on loopback. Each phase is repeated ``--rounds`` times; the figures
are the median and the worst. Timings are reported here, never asserted in tests.

Usage (an index loaded under --prefix, e.g. by `make run` or `provider-indexer load`):
    python -m bench.outage_bench --prefix PREFIX [--rounds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

from aiohttp.test_utils import TestClient, TestServer
from elasticsearch import AsyncElasticsearch, TransportError

from core.es_client import make_client
from devtools import es_launcher
from devtools.tcp_proxy import Mode, TcpProxy
from service.web.app import create_app
from service.web.auth import mint_token
from service.web.settings import Settings

PROVIDER = "/v2/providers/{npi}"


async def _timed(call: Callable[[], Awaitable[object]]) -> float:
    started = time.perf_counter()
    await call()
    return (time.perf_counter() - started) * 1000


def _summary(name: str, samples: list[float]) -> str:
    return f"| {name} | {statistics.median(samples):.1f} | {max(samples):.1f} | {len(samples)} |"


async def _any_npi(es: AsyncElasticsearch, prefix: str) -> str:
    hit = (await es.search(index=f"{prefix}-providers", size=1))["hits"]["hits"][0]
    return str(hit["_id"])


async def run(es_url: str, prefix: str, rounds: int) -> list[str]:
    async with make_client(es_url) as plain:  # not through the proxy nor the 0.9 s budget
        npi = await _any_npi(plain, prefix)
    proxy = TcpProxy(es_url)
    await proxy.start()
    settings = Settings(elasticsearch_url=proxy.url, index_prefix=prefix, rate_limit_per_s=0)
    client = TestClient(TestServer(create_app(settings)))
    await client.start_server()
    direct = make_client(
        proxy.url,
        request_timeout=settings.es_request_timeout_s,
        max_retries=settings.es_max_retries,
    )
    auth = {"Authorization": f"Bearer {mint_token(settings)}"}

    async def service_status() -> int:
        async with client.get(PROVIDER.format(npi=npi), headers=auth) as response:
            await response.read()
            return response.status

    async def service_get(expected: int) -> None:
        status = await service_status()
        assert status == expected, status

    async def service_answers() -> None:
        """Until a 200: on a machine too busy for the 0.9 s budget, a healthy node's answer can
        be a 503 too, and is asked again; so this is the time to the first answer."""
        while True:
            if await service_status() == 200:
                return
            await asyncio.sleep(0.05)

    async def direct_get(fails: bool) -> None:
        try:
            await direct.get(index=f"{prefix}-providers", id=npi)
        except TransportError:
            assert fails
            return
        assert not fails

    results: dict[str, list[float]] = {}

    async def phase(name: str, mode: Mode, expected: int) -> None:
        for _ in range(rounds):
            await service_answers()  # warm connections to a healthy node first
            proxy.set_mode(mode)
            results.setdefault(f"service: {name}", []).append(
                await _timed(lambda: service_get(expected))
            )
            results.setdefault(f"direct client: {name}", []).append(
                await _timed(lambda: direct_get(fails=mode != "forward"))
            )
            proxy.set_mode("forward")
            results.setdefault("service: first answer after recovery", []).append(
                await _timed(service_answers)
            )

    try:
        await phase("node gone (connections reset)", "reset", 503)
        await phase("node hung (no answer)", "hang", 503)
    finally:
        await client.close()
        await direct.close()
        await proxy.close()
    header = ["| what | median ms | worst ms | rounds |", "|---|---|---|---|"]
    return header + [_summary(name, samples) for name, samples in results.items()]


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--rounds", type=int, default=20)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    es_url = es_launcher.start().url  # ELASTICSEARCH_URL, or the development node
    print("\n".join(asyncio.run(run(es_url, args.prefix, args.rounds))))


if __name__ == "__main__":
    main()
