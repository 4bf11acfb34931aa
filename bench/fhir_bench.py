"""FHIR search cost: each question asked of ``/fhir`` and of ``/v2/providers/search`` through the
same service process, in alternating slices of the same run.

The questions are made from providers of the loaded index (a random sample): one of their
points and taxonomy codes. Two pairs per question:
- free text near a place: ``PractitionerRole?_text=WORDS&near=lat|lng|10|mi`` vs the /v2 search
  ``{query: WORDS, location, radius: 10, entityType: individual}``;
- a specialty near a place: ``PractitionerRole?specialty=CODE&near=lat|lng|10|mi`` vs
  ``{location, radius: 10, taxonomyCode: CODE, entityType: individual, sort: distance}``.
Both ask for 20 results. Then Location searches, FHIR only (a Location search also reads the
plans' counties): ``Location?near=lat|lng|10|mi`` and ``Location?address-state=ST`` of the same
questions.

Usage (an index must already be loaded under --prefix):
    python -m bench.fhir_bench --prefix PREFIX [--seconds 20] [--levels 1,16] [--questions 200]
"""

from __future__ import annotations

import argparse
import asyncio
import random
from collections.abc import Awaitable
from typing import Any

import aiohttp

from bench.harness import harness_parser, parse_harness_args, print_comparison, running_service
from core.index_contract import IndexNames
from service.web.auth import mint_token
from service.web.settings import Settings

RADIUS_MI = 10
PAGE = 20


async def sample_questions(
    es_url: str, names: IndexNames, count: int, seed: int
) -> list[tuple[float, float, str, str, str]]:
    """(lat, lng, taxonomy code, its display name, state) of random placed individuals."""
    body = {
        "size": count * 3,
        "_source": ["locations.address", "provider.specialties"],
        "query": {
            "function_score": {
                "query": {"bool": {"filter": [{"exists": {"field": "points"}}]}},
                "random_score": {"seed": seed, "field": "_seq_no"},
            }
        },
    }
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{es_url}/{names.alias('search')}/_search", json=body) as response,
    ):
        hits = (await response.json())["hits"]["hits"]
    questions = []
    for hit in hits:
        source: dict[str, Any] = hit["_source"]
        specialties = source["provider"]["specialties"]
        named = [s for s in specialties if s.get("classification")]
        placed = [p["address"] for p in source["locations"] if p["address"]["lat"] is not None]
        if placed and named:
            code, words = named[0]["code"], named[0]["classification"]
            where = placed[0]
            questions.append((where["lat"], where["lng"], code, words, where["state"] or ""))
    return questions[:count]


async def fetched(http: aiohttp.ClientSession, url: str, headers: dict[str, str]) -> bool:
    async with http.get(url, headers=headers) as response:
        await response.read()
        return response.status == 200


async def posted(
    http: aiohttp.ClientSession, url: str, body: dict[str, Any], headers: dict[str, str]
) -> bool:
    async with http.post(url, json=body, headers=headers) as response:
        await response.read()
        return response.status == 200


async def main_async(args: argparse.Namespace) -> None:
    names = IndexNames(args.prefix)
    questions = await sample_questions(args.es_url, names, args.questions, args.seed)
    random.Random(args.seed).shuffle(questions)
    headers = {"Authorization": f"Bearer {mint_token(Settings())}"}
    async with (
        running_service(args) as base,
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64)) as http,
    ):
        for pair in ("_text", "specialty"):

            def via_fhir(i: int, pair: str = pair) -> Awaitable[bool]:
                lat, lng, code, words, _ = questions[i]
                near = f"near={lat}|{lng}|{RADIUS_MI}|mi&_count={PAGE}"
                asked = f"_text={words}" if pair == "_text" else f"specialty={code}"
                return fetched(http, f"{base}/fhir/PractitionerRole?{asked}&{near}", headers)

            def via_v2(i: int, pair: str = pair) -> Awaitable[bool]:
                lat, lng, code, words, _ = questions[i]
                body: dict[str, Any] = {
                    "location": {"lat": lat, "lng": lng},
                    "radius": RADIUS_MI,
                    "entityType": "individual",
                    "pageSize": PAGE,
                }
                if pair == "_text":
                    body["query"] = words
                else:
                    body |= {"taxonomyCode": code, "sort": "distance"}
                return posted(http, f"{base}/v2/providers/search", body, headers)

            title = f"PractitionerRole {pair} near a place vs /v2: {len(questions)} questions"
            arms = [("fhir", via_fhir), ("v2", via_v2)]
            await print_comparison(title, args, arms, len(questions), warm_up_clients=4)
            print()

        def near(i: int) -> Awaitable[bool]:
            lat, lng = questions[i][:2]
            asked = f"near={lat}|{lng}|{RADIUS_MI}|mi&_count={PAGE}"
            return fetched(http, f"{base}/fhir/Location?{asked}", headers)

        def in_state(i: int) -> Awaitable[bool]:
            asked = f"address-state={questions[i][4]}&_count={PAGE}"
            return fetched(http, f"{base}/fhir/Location?{asked}", headers)

        title = f"Location near a place vs in its state: {len(questions)} questions"
        location_arms = [("near", near), ("address-state", in_state)]
        await print_comparison(title, args, location_arms, len(questions), warm_up_clients=4)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = harness_parser(__doc__, levels=[1, 16], port=8097)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=5)
    return parse_harness_args(parser, argv)


def main(argv: list[str] | None = None) -> None:
    asyncio.run(main_async(arguments(argv)))


if __name__ == "__main__":
    main()
