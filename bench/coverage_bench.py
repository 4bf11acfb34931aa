"""Coverage benchmark: a request of 10 bid ids x 100 NPIs through the service (the full view
and the compact one) vs. the one ``_msearch`` it makes, sent straight to Elasticsearch, in the
same run.

Usage (an index with coverage loaded under --prefix):
    python -m bench.coverage_bench --es-url URL --prefix PREFIX [--seconds 20] [--levels 1,4,16]
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable
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
from core.index_contract import IndexNames
from service.coverage.models import CoverageRequest
from service.coverage.query import coverage_searches
from service.storage import WHOLE_ANSWERS_ONLY
from service.web.auth import mint_token
from service.web.settings import Settings


async def coverage_request(es_url: str, names: IndexNames, bids: int, npis: int) -> dict[str, Any]:
    """Real plans and providers of the loaded coverage index: the most-linked ones."""
    body = {
        "size": 0,
        "aggs": {
            "bids": {"terms": {"field": "bidId", "size": bids}},
            "npis": {"terms": {"field": "npi", "size": npis}},
        },
    }
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{es_url}/{names.alias('coverage')}/_search", json=body) as response,
    ):
        aggs = (await response.json())["aggregations"]
    return {
        "contractYear": 2026,
        "bidIds": [b["key"] for b in aggs["bids"]["buckets"]],
        "npis": [{"npi": b["key"]} for b in aggs["npis"]["buckets"]],
    }


def msearch_payload(request_body: dict[str, Any], names: IndexNames) -> bytes:
    request = CoverageRequest.model_validate_json(orjson.dumps(request_body))
    lines = coverage_searches(request, names, WHOLE_ANSWERS_ONLY)
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


async def main_async(args: argparse.Namespace) -> None:
    names = IndexNames(args.prefix)
    request_body = await coverage_request(args.es_url, names, args.bids, args.npis)
    service_body = orjson.dumps(request_body)
    compact_body = orjson.dumps({**request_body, "view": "compact"})
    direct_body = msearch_payload(request_body, names)
    token = mint_token(Settings())
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    es_headers = {"Content-Type": "application/x-ndjson"}
    async with running_service(args) as service_url, aiohttp.ClientSession() as http:
        service_coverage = f"{service_url}/v2/providers/coverage"

        def via_service(_: int) -> Awaitable[bool]:
            return answered(http, service_coverage, service_body, headers)

        def compact(_: int) -> Awaitable[bool]:
            return answered(http, service_coverage, compact_body, headers)

        def direct(_: int) -> Awaitable[bool]:
            return answered(http, f"{args.es_url}/_msearch", direct_body, es_headers)

        title = (
            f"request: {len(request_body['bidIds'])} bid ids x "
            f"{len(request_body['npis'])} NPIs; {args.seconds:.0f} s per run"
        )
        arms = [
            ("service, full view", via_service),
            ("service, compact view", compact),
            ("elasticsearch msearch", direct),
        ]
        await print_comparison(title, args, arms, 1, warm_up_clients=2)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = harness_parser(__doc__, levels=[1, 4], port=8098)
    parser.add_argument("--bids", type=int, default=10)
    parser.add_argument("--npis", type=int, default=100)
    return parse_harness_args(parser, argv)


def main(argv: list[str] | None = None) -> None:
    asyncio.run(main_async(arguments(argv)))


if __name__ == "__main__":
    main()
