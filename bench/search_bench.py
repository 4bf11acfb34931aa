"""Search benchmark: the service vs. the same Elasticsearch bodies sent straight to Elasticsearch.

Usage (an index must already be loaded under --prefix):
    python -m bench.search_bench --es-url URL --prefix PREFIX [--seconds 20] [--levels 1,4,16]

It starts the service as its own process (as deployed), builds a realistic query mix from real
documents of the loaded index (exact names, one-typo names, specialties, lay terms, several
cities and radii, location-only), and for each concurrency level runs the mix against the
service and then the identical bodies against Elasticsearch, with the same HTTP client.

About 300 lines: the query mix built from real documents is most of it; the harness helpers
(``compare``, ``run_level``, ``start_service``, ``harness_parser``) are shared with the coverage
benchmark.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import aiohttp
import orjson

from core.index_contract import IndexNames
from devtools.settings import LauncherSettings
from service.search.interpret import interpret
from service.search.models import SearchRequest
from service.search.places import UnknownPlace, resolve
from service.search.query import build_search
from service.web.auth import mint_token
from service.web.settings import Settings

LAY_TERMS = [
    "heart doctor",
    "peds",
    "obgyn",
    "derm",
    "eye doctor",
    "pcp",
    "ortho",
    "ENT",
    "children's doctor",
    "psychiatrist",
    "physical therapist",
    "dentist",
]
SPECIALTIES = [
    "Family Medicine",
    "Internal Medicine",
    "Nurse Practitioner",
    "Cardiovascular",
    "Dermatology",
    "Pharmacy",
    "Psychiatry",
    "Physical Therapist",
]
RADII = [2, 5, 10, 25, 50]


@dataclass
class Stats:
    latencies_ms: list[float]
    errors: int
    seconds: float

    def row(self, label: str, clients: int) -> str:
        lat = sorted(self.latencies_ms)

        def pct(p: float) -> float:
            return lat[min(len(lat) - 1, int(p * len(lat)))] if lat else float("nan")

        rate = len(lat) / self.seconds
        return (
            f"| {label} | {clients} | {len(lat)} | {self.errors} | {pct(0.50):.1f} | "
            f"{pct(0.95):.1f} | {pct(0.99):.1f} | {rate:.0f} |"
        )


def _typo(word: str, rng: random.Random) -> str:
    if len(word) < 5:
        return word
    i = rng.randrange(1, len(word) - 1)
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


async def query_mix(es_url: str, names: IndexNames, size: int, seed: int) -> list[dict[str, Any]]:
    """Request bodies built from real documents of the loaded index."""
    rng = random.Random(seed)
    body = {
        "size": 300,
        "query": {"function_score": {"random_score": {"seed": seed, "field": "npi"}}},
        "_source": ["provider", "locations.location.address"],
    }
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{es_url}/{names.alias('search')}/_search", json=body) as response,
    ):
        hits = (await response.json())["hits"]["hits"]
    mix: list[dict[str, Any]] = []
    for hit in hits:
        provider = hit["_source"]["provider"]
        address = hit["_source"]["locations"][0]["location"]["address"]
        if not address.get("zip") or address.get("lat") is None:
            continue
        name = (
            f"{provider.get('firstName') or ''} {provider.get('lastName') or ''}".strip()
            or provider.get("organizationName")
            or ""
        )
        city = f"{address['city']}, {address['state']}"
        try:  # a generated row's city may be no real city: the service would rightly 400
            resolve(city)
        except UnknownPlace:
            continue
        zip5 = address["zip"][:5]
        kind = len(mix) % 6
        if kind == 0:
            mix.append({"query": name, "location": zip5, "radius": rng.choice(RADII)})
        elif kind == 1:
            typo = " ".join(_typo(w, rng) for w in name.split())
            mix.append({"query": typo, "location": city, "radius": 25})
        elif kind == 2:
            mix.append(
                {"query": rng.choice(LAY_TERMS), "location": city, "radius": rng.choice(RADII)}
            )
        elif kind == 3:
            mix.append(
                {
                    "query": rng.choice(SPECIALTIES),
                    "location": {"lat": address["lat"], "lng": address["lng"]},
                    "radius": rng.choice(RADII),
                    "pageSize": 20,
                }
            )
        elif kind == 4:
            mix.append({"query": name})
        else:
            mix.append(
                {"location": zip5, "radius": rng.choice(RADII), "sort": "distance", "pageSize": 25}
            )
        if len(mix) >= size:
            break
    return mix


def elasticsearch_body(request_body: dict[str, Any]) -> dict[str, Any]:
    request = SearchRequest.model_validate_json(orjson.dumps(request_body))
    place = resolve(request.location) if request.location is not None else None
    return build_search(request, interpret(request.query or ""), place)


async def run_level(
    clients: int, seconds: float, call: Callable[[int], Awaitable[bool]], total: int
) -> Stats:
    latencies: list[float] = []
    errors = 0
    deadline = time.perf_counter() + seconds

    async def worker(offset: int) -> None:
        nonlocal errors
        i = offset
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            ok = await call(i % total)
            latencies.append((time.perf_counter() - started) * 1000)
            errors += not ok
            i += clients

    started = time.perf_counter()
    await asyncio.gather(*(worker(n) for n in range(clients)))
    return Stats(latencies, errors, time.perf_counter() - started)


async def compare(
    clients: int,
    seconds: float,
    arms: Sequence[tuple[str, Callable[[int], Awaitable[bool]]]],
    total: int,
    rounds: int = 5,
) -> list[tuple[str, Stats]]:
    """Each arm for ``seconds`` in all, in ``rounds`` alternating slices, so that load from
    anything else on the machine falls on both arms alike."""
    merged = {label: Stats([], 0, 0.0) for label, _ in arms}
    for _ in range(rounds):
        for label, call in arms:
            stats = await run_level(clients, seconds / rounds, call, total)
            merged[label].latencies_ms.extend(stats.latencies_ms)
            merged[label].errors += stats.errors
            merged[label].seconds += stats.seconds
    return list(merged.items())


def start_service(es_url: str, prefix: str, port: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "ELASTICSEARCH_URL": es_url,
        "PD_INDEX_PREFIX": prefix,
        "PD_PORT": str(port),
        "PD_ENVIRONMENT": "development",
        "PD_RATE_LIMIT_PER_S": "0",  # measure the service, not its rate limiter
        "PD_METRICS_ENABLED": "true",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def wait_ready(url: str) -> None:
    async with aiohttp.ClientSession() as http:
        for _ in range(100):
            try:
                async with http.get(f"{url}/readyz") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.2)
    raise RuntimeError("service did not become ready")


async def main_async(args: argparse.Namespace) -> None:
    names = IndexNames(args.prefix)
    mix = await query_mix(args.es_url, names, args.queries, args.seed)
    es_bodies = [orjson.dumps(elasticsearch_body(b)) for b in mix]
    service_bodies = [orjson.dumps(b) for b in mix]
    token = mint_token(Settings())
    service_url = f"http://127.0.0.1:{args.port}"
    process = start_service(args.es_url, args.prefix, args.port)
    try:
        await wait_ready(service_url)
        connector = aiohttp.TCPConnector(limit=64)
        async with aiohttp.ClientSession(connector=connector) as http:
            headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
            es_headers = {"Content-Type": "application/json"}
            search_url = f"{args.es_url}/{names.alias('search')}/_search"

            async def via_service(i: int) -> bool:
                async with http.post(
                    f"{service_url}/v2/providers/search", data=service_bodies[i], headers=headers
                ) as response:
                    await response.read()
                    return response.status == 200

            async def direct(i: int) -> bool:
                async with http.post(search_url, data=es_bodies[i], headers=es_headers) as response:
                    await response.read()
                    return response.status == 200

            await run_level(4, 3, via_service, len(mix))  # warm-up: caches, JIT, connections
            await run_level(4, 3, direct, len(mix))
            print(
                f"queries in the mix: {len(mix)}; {args.seconds:.0f} s per arm and level, "
                "in 5 alternating slices\n"
            )
            print("| target | clients | requests | errors | p50 ms | p95 ms | p99 ms | req/s |")
            print("|---|---|---|---|---|---|---|---|")
            arms = [("service", via_service), ("elasticsearch", direct)]
            for clients in args.levels:
                for label, stats in await compare(clients, args.seconds, arms, len(mix)):
                    print(stats.row(label, clients), flush=True)
    finally:
        process.terminate()
        process.wait(timeout=10)


def harness_parser(doc: str | None, levels: list[int], port: int) -> argparse.ArgumentParser:
    """The options every service-vs-Elasticsearch harness takes."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0] if doc else None)
    parser.add_argument("--es-url", default=LauncherSettings().elasticsearch_url)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--levels", type=lambda s: [int(x) for x in s.split(",")], default=levels)
    parser.add_argument("--port", type=int, default=port)
    return parser


def parse_harness_args(parser: argparse.ArgumentParser) -> argparse.Namespace:
    args = parser.parse_args()
    if not args.es_url:
        parser.error("--es-url or ELASTICSEARCH_URL is required")
    return args


def main() -> None:
    parser = harness_parser(__doc__, levels=[1, 4, 16], port=8099)
    parser.add_argument("--queries", type=int, default=240)
    parser.add_argument("--seed", type=int, default=7)
    asyncio.run(main_async(parse_harness_args(parser)))


if __name__ == "__main__":
    main()
