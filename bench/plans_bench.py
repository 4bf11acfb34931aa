"""Plans-for-my-doctors benchmark: ``POST /v2/plans/search`` for a ZIP and three doctors
through the service vs. the one ``_msearch`` it makes for that question (the area's plans, the
count of every plan offered there, the doctors' lookup documents and rows), sent straight to
Elasticsearch, in the same run.

Usage (an index with plans and coverage loaded under --prefix):
    python -m bench.plans_bench --es-url URL --prefix PREFIX [--zip 29201] [--seconds 20]
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable
from datetime import UTC, datetime
from typing import Any

import aiohttp
import orjson

from bench.harness import (
    answered,
    harness_parser,
    parse_harness_args,
    print_comparison,
    running_service,
)
from core.index_contract import PLAN_FIELDS, IndexNames
from service.plans.models import PlanSearchRequest
from service.plans.query import plan_searches
from service.storage import WHOLE_ANSWERS_ONLY
from service.web.auth import mint_token
from service.web.settings import Settings


async def _post(http: aiohttp.ClientSession, url: str, body: Any) -> Any:
    async with http.post(url, json=body) as response:
        return await response.json()


async def doctors(es_url: str, names: IndexNames, zip_code: str, count: int) -> list[str]:
    """The NPIs the coverage index puts in most of the ZIP's plans."""
    async with aiohttp.ClientSession() as http:
        plans = await _post(
            http,
            f"{es_url}/{names.alias('plans')}/_search",
            {"size": 2000, "query": {"term": {PLAN_FIELDS.zips: zip_code}}, "_source": ["bidId"]},
        )
        bids = [hit["_source"]["bidId"] for hit in plans["hits"]["hits"]]
        rows = await _post(
            http,
            f"{es_url}/{names.alias('coverage')}/_search",
            {
                "size": 0,
                "query": {"terms": {"bidId": bids}},
                "aggs": {"npis": {"terms": {"field": "npi", "size": count}}},
            },
        )
    return [bucket["key"] for bucket in rows["aggregations"]["npis"]["buckets"]]


def ndjson(lines: list[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


async def main_async(args: argparse.Namespace) -> None:
    names = IndexNames(args.prefix)
    npis = await doctors(args.es_url, names, args.zip, args.npis)
    body = {"zip": args.zip, "npis": [{"npi": n} for n in npis], "pageSize": args.page_size}
    request = PlanSearchRequest.model_validate_json(orjson.dumps(body))
    year = datetime.now(UTC).year
    area_body = ndjson(plan_searches(request, year, names, WHOLE_ANSWERS_ONLY))
    token = mint_token(Settings())
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    es_headers = {"Content-Type": "application/x-ndjson"}
    async with running_service(args) as service_url, aiohttp.ClientSession() as http:
        first = await (
            await http.post(f"{service_url}/v2/plans/search", json=body, headers=headers)
        ).json()
        service_body = orjson.dumps(body)

        def via_service(_: int) -> Awaitable[bool]:
            return answered(http, f"{service_url}/v2/plans/search", service_body, headers)

        def direct(_: int) -> Awaitable[bool]:
            return answered(http, f"{args.es_url}/_msearch", area_body, es_headers)

        title = (
            f"plans/search: ZIP {args.zip}, {first['totalCount']} plans, {len(npis)} NPIs, page"
            f" of {args.page_size}; {args.seconds:.0f} s per run"
        )
        arms = [("service plans/search", via_service), ("elasticsearch msearch", direct)]
        await print_comparison(title, args, arms, 1, warm_up_clients=2)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = harness_parser(__doc__, levels=[1, 16], port=8097)
    parser.add_argument("--zip", default="29201")
    parser.add_argument("--npis", type=int, default=3)
    parser.add_argument("--page-size", type=int, default=20)
    return parse_harness_args(parser, argv)


def main(argv: list[str] | None = None) -> None:
    asyncio.run(main_async(arguments(argv)))


if __name__ == "__main__":
    main()
