"""Search benchmark: the service vs. the same Elasticsearch bodies sent straight to Elasticsearch.

Usage (an index must already be loaded under --prefix):
    python -m bench.search_bench --es-url URL --prefix PREFIX [--seconds 20] [--levels 1,4,16]
        [--min-confidence N]

It starts the service as its own process (as deployed), builds a realistic query mix from real
documents of the loaded index (exact names, one-typo names, specialties, lay terms, several
cities and radii, location-only), and for each concurrency level runs the mix against the
service and then the identical requests against Elasticsearch, with the same HTTP client: the
service's first-page search, or for a nearest-first page its ring and count multi-search
(service.search.nearest) and, when the ring does not hold the page, the whole-radius search.
With ``--min-confidence N`` the same mix is also asked with ``minConfidence: N`` (of the service
and of Elasticsearch), in the same alternating slices: minConfidence searches beside the same
searches without it.

The harness (service process, load generator, table) is ``bench/harness.py``, shared with the
coverage benchmark.
"""

from __future__ import annotations

import argparse
import asyncio
import random
from collections.abc import Awaitable
from typing import Any

import aiohttp
import orjson

from bench.harness import (
    Call,
    answered,
    harness_parser,
    parse_harness_args,
    print_comparison,
    running_service,
)
from core.clock import today_utc
from core.index_contract import IndexNames
from service.search.models import SearchRequest
from service.search.nearest import ring_answer, ring_body
from service.search.places import UnknownPlace, resolve
from service.search.query import build_search
from service.search.question import Question, read_question
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


def _typo(word: str, rng: random.Random) -> str:
    if len(word) < 5:
        return word
    i = rng.randrange(1, len(word) - 1)
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


QUERY_CLASSES = [
    "name near a place",
    "name with a typo near a place",
    "lay term near a place",
    "specialty near a point",
    "name alone",
    "place only",
]


async def query_mix(es_url: str, names: IndexNames, size: int, seed: int) -> list[dict[str, Any]]:
    """Request bodies built from real documents of the loaded index, in turn one of each
    ``QUERY_CLASSES`` (its index in the private key ``_class``, removed before sending)."""
    rng = random.Random(seed)
    body = {
        "size": 300,
        "query": {"function_score": {"random_score": {"seed": seed, "field": "npi"}}},
        "_source": ["provider", "locations.address"],
    }
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{es_url}/{names.alias('search')}/_search", json=body) as response,
    ):
        hits = (await response.json())["hits"]["hits"]
    mix: list[dict[str, Any]] = []
    for hit in hits:
        provider = hit["_source"]["provider"]
        address = hit["_source"]["locations"][0]["address"]
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
        mix[-1]["_class"] = kind
        if len(mix) >= size:
            break
    return mix


def question_of(request_body: dict[str, Any]) -> Question:
    request = SearchRequest.model_validate_json(orjson.dumps(request_body))
    return read_question(request, today_utc())


async def asked_directly(
    http: aiohttp.ClientSession, es_url: str, index: str, question: Question
) -> bool:
    """What the service asks Elasticsearch for this question's first page, asked directly."""
    headers = {"Content-Type": "application/json"}
    ring = ring_body(question)
    if ring is not None:
        async with http.post(
            f"{es_url}/{index}/_search", data=orjson.dumps(ring), headers=headers
        ) as response:
            if response.status != 200:
                return False
            answer = await response.json()
        if ring_answer(question, answer) is not None:
            return True
    body = orjson.dumps(build_search(question))
    return await answered(http, f"{es_url}/{index}/_search", body, headers)


async def main_async(args: argparse.Namespace) -> None:
    names = IndexNames(args.prefix)
    mix = await query_mix(args.es_url, names, args.queries, args.seed)
    classes = [QUERY_CLASSES[body.pop("_class")] for body in mix]
    mixes = {"": mix}
    if args.min_confidence is not None:
        mixes[f", minConfidence {args.min_confidence}"] = [
            {**body, "minConfidence": args.min_confidence} for body in mix
        ]
    token = mint_token(Settings())
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    index = names.alias("search")
    async with (
        running_service(args) as service_url,
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64)) as http,
    ):
        service_search = f"{service_url}/v2/providers/search"
        arms: list[tuple[str, Call]] = []
        for suffix, bodies in mixes.items():
            questions = [question_of(b) for b in bodies]
            sent = [orjson.dumps(b) for b in bodies]

            def via_service(i: int, sent: list[bytes] = sent) -> Awaitable[bool]:
                return answered(http, service_search, sent[i], headers)

            def direct(i: int, questions: list[Question] = questions) -> Awaitable[bool]:
                return asked_directly(http, args.es_url, index, questions[i])

            arms += [(f"service{suffix}", via_service), (f"elasticsearch{suffix}", direct)]

        title = (
            f"queries in the mix: {len(mix)}; {args.seconds:.0f} s per arm and level, "
            "in 5 alternating slices"
        )
        await print_comparison(title, args, arms, len(mix), warm_up_clients=4, classes=classes)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = harness_parser(__doc__, levels=[1, 4, 16], port=8099)
    parser.add_argument("--queries", type=int, default=240)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--min-confidence",
        type=int,
        choices=range(2, 6),
        metavar="N",
        help="also ask the same mix with minConfidence N (2-5), beside it",
    )
    return parse_harness_args(parser, argv)


def main(argv: list[str] | None = None) -> None:
    asyncio.run(main_async(arguments(argv)))


if __name__ == "__main__":
    main()
