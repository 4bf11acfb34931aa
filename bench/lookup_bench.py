"""Lookup benchmark: ``GET /v2/providers/{npi}`` and ``GET /v2/providers/{npi}/locations`` through
the service vs. the same document read (``GET _doc`` with source filtering) straight from
Elasticsearch, in the same run.

Usage (an index must already be loaded under --prefix):
    python -m bench.lookup_bench --prefix PREFIX [--seconds 20] [--levels 1,16] [--npis 2000]
        [--floor]   # a third arm: the same read on a bare aiohttp app (bench.floor_server)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable

import aiohttp

from bench.harness import (
    harness_parser,
    listening_socket,
    parse_harness_args,
    print_comparison,
    running_service,
    served_url,
    stop_service,
    wait_ready,
)
from core.index_contract import IndexNames
from service.web.auth import mint_token
from service.web.settings import Settings


async def sample_npis(es_url: str, names: IndexNames, count: int, seed: int) -> list[str]:
    body = {
        "size": count,
        "_source": False,
        "query": {"function_score": {"random_score": {"seed": seed, "field": "_seq_no"}}},
    }
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{es_url}/{names.alias('providers')}/_search", json=body) as response,
    ):
        return [hit["_id"] for hit in (await response.json())["hits"]["hits"]]


async def fetched(http: aiohttp.ClientSession, url: str, headers: dict[str, str]) -> bool:
    async with http.get(url, headers=headers) as response:
        await response.read()
        return response.status == 200


@contextlib.asynccontextmanager
async def floor_server(args: argparse.Namespace) -> AsyncIterator[str | None]:
    """bench.floor_server on the port after ``--port`` (any free one with ``--port 0``) when
    ``--floor`` asks for it; its URL."""
    if not args.floor:
        yield None
        return
    with listening_socket(args.port + 1 if args.port else 0) as sock:
        url = served_url(sock)
        process = start_floor(args.es_url, args.prefix, sock, args.es_timeout)
    try:
        await wait_ready(url, process)
        yield url
    finally:
        stop_service(process)


def start_floor(
    es_url: str, prefix: str, sock: socket.socket, es_timeout_s: float | None
) -> subprocess.Popen[bytes]:
    fd = sock.fileno()
    timeout = [] if es_timeout_s is None else ["--es-timeout", str(es_timeout_s)]
    command = [sys.executable, "-m", "bench.floor_server", es_url, prefix, "--fd", str(fd)]
    return subprocess.Popen([*command, *timeout], pass_fds=(fd,))


async def main_async(args: argparse.Namespace) -> None:
    names = IndexNames(args.prefix)
    npis = await sample_npis(args.es_url, names, args.npis, args.seed)
    headers = {"Authorization": f"Bearer {mint_token(Settings())}"}
    doc = f"{args.es_url}/{names.alias('providers')}/_doc"
    async with (
        running_service(args) as service_url,
        floor_server(args) as floor_url,
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64)) as http,
    ):
        for part, tail in (("provider", ""), ("locations", "/locations")):

            def via_service(i: int, tail: str = tail) -> Awaitable[bool]:
                return fetched(http, f"{service_url}/v2/providers/{npis[i]}{tail}", headers)

            def direct(i: int, part: str = part) -> Awaitable[bool]:
                return fetched(http, f"{doc}/{npis[i]}?_source_includes={part}", {})

            title = f"GET /v2/providers/{{npi}}{tail}: {len(npis)} NPIs, {args.seconds:.0f} s"

            def floor(i: int, tail: str = tail) -> Awaitable[bool]:
                return fetched(http, f"{floor_url}/v2/providers/{npis[i]}{tail}", {})

            arms = [("service", via_service), ("elasticsearch", direct)]
            if floor_url is not None:
                arms.insert(1, ("floor (bare aiohttp)", floor))
            await print_comparison(title, args, arms, len(npis), warm_up_clients=4)
            print()


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = harness_parser(__doc__, levels=[1, 16], port=8096)
    parser.add_argument("--npis", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--floor", action="store_true", help="add the bare aiohttp arm")
    return parse_harness_args(parser, argv)


def main(argv: list[str] | None = None) -> None:
    asyncio.run(main_async(arguments(argv)))


if __name__ == "__main__":
    main()
