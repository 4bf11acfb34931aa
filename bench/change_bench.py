"""Change feed and webhook benchmark (issue 48), each side by side with its baseline in one run.

Usage:
    python -m bench.change_bench feed --prefix PREFIX [--records 500000] [--npis 200000]
        [--seconds 20] [--levels 1,16]     # PREFIX: a loaded one (the service waits for it)
    python -m bench.change_bench webhooks --prefix PREFIX [--watches 1000] [--rounds 3]

``feed``: a feed of ``--records`` changes of ``--npis`` providers (written as updates write
them, indexer.change_log) read by clients that each follow 100 NPIs from a cursor somewhere in
it (``GET /v2/changes?npi=...&since=...``, pageSize 100), against the same search sent
straight to Elasticsearch (service.changes.read.changes_query).

``webhooks``: ``--watches`` watches (5 NPIs each) on a receiver on 127.0.0.1 (a child process
answering 204); each round records one change per watch, then times the delivery rounds
(service.watches.delivery.Deliverer: claim, batch, sign, POST, record) until every watch is
delivered, against POSTing the same number of bodies of the same size straight to the receiver
with the same concurrency (no Elasticsearch, no signature): deliveries per second for each.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import socket
import subprocess
import sys
import time

import aiohttp
import orjson
from aiohttp import web
from elasticsearch import AsyncElasticsearch

from bench.harness import (
    Arms,
    harness_parser,
    listening_socket,
    parse_harness_args,
    print_comparison,
    running_service,
    served_url,
    stop_service,
    wait_ready,
)
from core.change_log import CHANGE_KINDS, Change, encode_cursor
from core.es_client import make_client
from core.index_contract import IndexNames
from core.watches import MAX_WATCHES_PER_SUBJECT
from indexer.change_log import ChangeLog
from indexer.publication import publish
from service.changes.read import Followed, changes_query
from service.watches.delivery import Deliverer
from service.watches.manage import create_watch
from service.watches.models import WatchRequest
from service.watches.targets import TargetRules
from service.web.auth import mint_token
from service.web.settings import Settings

FOLLOWED = 100  # NPIs a feed client follows
PER_WATCH = 5  # NPIs a watch follows
BATCH = 10_000


def _npi(n: int) -> str:
    return f"1{n:09d}"


def _change(npi: str, rng: random.Random) -> Change:
    kind = rng.choice(CHANGE_KINDS[:11])  # the provider kinds
    plan = kind.startswith("network")
    return Change(
        kind=kind,
        npi=npi,
        bidId=f"H{rng.randrange(1000, 9999)}_001_000" if plan else None,
        contractYear=2026 if plan else None,
        before={"address": {"line": [f"{rng.randrange(1, 999)} Main St"], "postalCode": "04101"}},
        after={"address": {"line": [f"{rng.randrange(1, 999)} Oak St"], "postalCode": "04102"}},
        source="npidata_pfile_weekly.csv",
    )


async def _record(es: AsyncElasticsearch, names: IndexNames, changes: list[Change]) -> int:
    """The changes as one update records them; the feed's mark after them."""
    log = await ChangeLog.begin(es, names, "update")
    for start in range(0, len(changes), BATCH):
        await log.record(changes[start : start + BATCH], "2026-12-06T00:00:00Z")
    marks = await log.commit(400)
    await publish(es, names, "bench", "update", marks)
    return marks["changesThrough"]


async def feed(args: argparse.Namespace) -> None:
    names = IndexNames(args.prefix)
    rng = random.Random(args.seed)
    es = make_client(args.es_url)
    try:
        changes = [_change(_npi(rng.randrange(args.npis)), rng) for _ in range(args.records)]
        started = time.perf_counter()
        through = await _record(es, names, changes)
        print(f"{args.records:,} changes of {args.npis:,} NPIs recorded in"
              f" {time.perf_counter() - started:.1f} s\n")  # fmt: skip
    finally:
        await es.close()
    asks = [
        (sorted({_npi(rng.randrange(args.npis)) for _ in range(FOLLOWED)}), rng.randrange(through))
        for _ in range(200)
    ]
    headers = {"Authorization": f"Bearer {mint_token(Settings())}"}
    search = f"{args.es_url}/{names.changes()}/_search?allow_partial_search_results=false"
    async with (
        running_service(args) as service_url,
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64)) as http,
    ):

        async def via_service(i: int) -> bool:
            npis, after = asks[i]
            query = [("npi", npi) for npi in npis]
            query += [("since", encode_cursor(after)), ("pageSize", "100")]
            async with http.get(f"{service_url}/v2/changes", params=query, headers=headers) as r:
                await r.read()
                return r.status == 200

        async def direct(i: int) -> bool:
            npis, after = asks[i]
            body = changes_query(Followed(npis, [], []), after, through, 100)
            async with http.post(search, data=orjson.dumps(body), headers=_JSON) as r:
                await r.read()
                return r.status == 200

        arms: Arms = [("service", via_service), ("elasticsearch", direct)]
        title = (
            f"GET /v2/changes, {FOLLOWED} NPIs from a cursor, pageSize 100: {args.records:,}"
            f" changes, {args.seconds:.0f} s"
        )
        await print_comparison(title, args, arms, len(asks), warm_up_clients=4)


_JSON = {"Content-Type": "application/json"}


async def _receive(fd: int) -> None:
    async def answer(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(status=204)

    async def ready(_request: web.Request) -> web.Response:
        return web.Response(status=200)

    app = web.Application(client_max_size=1 << 20)
    app.router.add_get("/readyz", ready)  # what bench.harness.wait_ready asks
    app.router.add_post("/{tail:.*}", answer)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.SockSite(runner, socket.socket(fileno=fd)).start()
    await asyncio.Event().wait()


def _start_receiver(sock: socket.socket) -> subprocess.Popen[bytes]:
    fd = sock.fileno()
    command = [sys.executable, "-m", "bench.change_bench", "receive", "--fd", str(fd)]
    return subprocess.Popen(command, pass_fds=(fd,))


async def webhooks(args: argparse.Namespace) -> None:
    names = IndexNames(args.prefix)
    settings = Settings(
        elasticsearch_url=args.es_url,
        index_prefix=args.prefix,
        webhook_allow=["127.0.0.1"],
        webhook_concurrency=args.concurrency,
    )
    es = make_client(args.es_url, request_timeout=60)
    with listening_socket(0) as sock:
        receiver_url = served_url(sock)
        receiver = _start_receiver(sock)
    deliverer = Deliverer(es, names, settings)
    try:
        await wait_ready(receiver_url, receiver)
        rules = TargetRules.of(["127.0.0.1"])
        followed = []
        for n in range(args.watches):
            npis = [_npi(n * PER_WATCH + k) for k in range(PER_WATCH)]
            request = WatchRequest(npis=npis, url=f"{receiver_url}/hooks/{n}")
            subject = f"bench-advisor-{n // MAX_WATCHES_PER_SUBJECT}"  # each within the bound
            await create_watch(es, names, subject, request, rules)
            followed.append(npis[0])
        rng = random.Random(args.seed)
        print(f"{args.watches:,} watches of {PER_WATCH} NPIs, a change for each per round;"
              f" {args.concurrency} in flight\n")  # fmt: skip
        print("| round | arm | deliveries | seconds | deliveries/s |")
        print("|---|---|---|---|---|")
        for round_ in range(1, args.rounds + 1):
            await _record(es, names, [_change(npi, rng) for npi in followed])
            sent, seconds = await _deliver_all(deliverer)
            print(f"| {round_} | deliverer | {sent} | {seconds:.2f} | {sent / seconds:.0f} |")
            raw, seconds = await _post_all(receiver_url, args.watches, args.concurrency)
            print(f"| {round_} | raw POSTs | {raw} | {seconds:.2f} | {raw / seconds:.0f} |")
    finally:
        await deliverer.close()
        await es.close()
        stop_service(receiver)


async def _deliver_all(deliverer: Deliverer) -> tuple[int, float]:
    started, sent = time.perf_counter(), 0
    while True:
        done = await deliverer.run_once()
        sent += done.sent
        if done.due == 0:
            return sent, time.perf_counter() - started


async def _post_all(url: str, count: int, concurrency: int) -> tuple[int, float]:
    body = orjson.dumps({"type": "provider-directory.changes", "data": {"changes": ["x" * 400]}})
    limit = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession() as http:

        async def post(n: int) -> None:
            async with limit, http.post(f"{url}/hooks/{n}", data=body, headers=_JSON) as r:
                await r.read()

        started = time.perf_counter()
        await asyncio.gather(*(post(n) for n in range(count)))
        return count, time.perf_counter() - started


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "receive":
        receive = argparse.ArgumentParser()
        receive.add_argument("mode")
        receive.add_argument("--fd", type=int, required=True)
        return receive.parse_args(argv)
    parser = harness_parser(__doc__, levels=[1, 16], port=8097)
    parser.add_argument("mode", choices=("feed", "webhooks"))
    parser.add_argument("--records", type=int, default=500_000)
    parser.add_argument("--npis", type=int, default=200_000)
    parser.add_argument("--watches", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--seed", type=int, default=48)
    return parse_harness_args(parser, argv)


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    if args.mode == "receive":
        asyncio.run(_receive(args.fd))
    else:
        asyncio.run(feed(args) if args.mode == "feed" else webhooks(args))


if __name__ == "__main__":
    main()
