"""The soak's workload (bench/soak.py): searches of every class, lookups, locations, coverage in
both views and a few bad requests, built from the loaded index, and how one is sent.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import aiohttp
import orjson

from bench.coverage_bench import coverage_request
from bench.lookup_bench import sample_npis
from bench.search_bench import QUERY_CLASSES, query_mix
from bench.soak_run import COVERAGE, FILTERS, MISSPELT, WEIGHTS, Call, Outcome, classify
from core.index_contract import IndexNames
from core.npi import with_check_digit
from service.search.models import SearchRequest


def interleave(
    pools: Mapping[str, Sequence[Call]], weights: Mapping[str, float], count: int, seed: int
) -> list[Call]:
    """``count`` calls, each kind drawn with its weight, each pool taken in turn."""
    kinds = [kind for kind in weights if pools.get(kind)]
    rng = random.Random(seed)
    taken: Counter[str] = Counter()
    calls: list[Call] = []
    for kind in rng.choices(kinds, [weights[k] for k in kinds], k=count):
        calls.append(pools[kind][taken[kind] % len(pools[kind])])
        taken[kind] += 1
    return calls


def _search(label: str, body: Mapping[str, Any]) -> Call:
    SearchRequest.model_validate(body)  # a body of ours that the service refuses is a bug here
    return Call("search", label, "POST", "/v2/providers/search", orjson.dumps(body))


def search_calls(mix: Sequence[dict[str, Any]], bids: Sequence[str]) -> list[Call]:
    """The search harness's mix, and for each body with a place one with a filter (bid ids
    included) and one with a misspelt specialty there."""
    calls: list[Call] = []
    filters = [*FILTERS, *({"bidId": bid, "contractYear": 2026} for bid in bids[:3])]
    for i, entry in enumerate(mix):
        body = {k: v for k, v in entry.items() if k != "_class"}
        calls.append(_search(QUERY_CLASSES[entry["_class"]], body))
        if "location" in body:
            calls.append(_search("filter", {**body, **filters[i % len(filters)]}))
            place = {"location": body["location"], "radius": body.get("radius", 25)}
            calls.append(_search("misspelt specialty", {"query": MISSPELT[i % 5], **place}))
    return calls


def lookup_calls(npis: Sequence[str]) -> dict[str, list[Call]]:
    return {
        "lookup": [Call("lookup", "provider", "GET", f"/v2/providers/{n}") for n in npis],
        "locations": [
            Call("locations", "locations", "GET", f"/v2/providers/{n}/locations") for n in npis
        ],
    }


def coverage_calls(request: Mapping[str, Any], count: int, seed: int) -> list[Call]:
    """``count`` requests of 1-5 of the plans and 5-50 of the providers, half compact."""
    rng = random.Random(seed)
    bids, npis = list(request["bidIds"]), list(request["npis"])
    calls = []
    for i in range(count):
        body = {
            "contractYear": request["contractYear"],
            "bidIds": rng.sample(bids, min(len(bids), rng.randint(1, 5))),
            "npis": rng.sample(npis, min(len(npis), rng.randint(5, 50))),
            "view": "compact" if i % 2 else "full",
        }
        calls.append(Call("coverage", body["view"], "POST", COVERAGE, orjson.dumps(body)))
    return calls


def bad_calls(npi: str, coverage: Mapping[str, Any]) -> list[Call]:
    search = "/v2/providers/search"
    unknown_field = {**coverage, "npis": coverage["npis"][:2], "colour": "blue"}
    absent = with_check_digit("299999999")
    return [
        Call("bad", "malformed JSON", "POST", search, b'{"query": "smith",', 400),
        Call("bad", "unknown field", "POST", search, b'{"query": "smith", "colour": "blue"}', 400),
        Call("bad", "invalid NPI", "GET", "/v2/providers/123456789", None, 400),
        Call("bad", "invalid NPI", "GET", f"/v2/providers/{npi[:-1]}x/locations", None, 400),
        Call("bad", "absent NPI", "GET", f"/v2/providers/{absent}", None, 404),
        Call("bad", "unknown field", "POST", COVERAGE, orjson.dumps(unknown_field), 400),
    ]


async def build_calls(es_url: str, names: IndexNames, seed: int) -> list[Call]:
    """The open loop's sequence (10,000 calls, repeated as needed) from the loaded index."""
    coverage = await coverage_request(es_url, names, 20, 200)
    npis = await sample_npis(es_url, names, 500, seed)
    pools = {
        "search": search_calls(await query_mix(es_url, names, 240, seed), coverage["bidIds"]),
        **lookup_calls(npis),
        "coverage": coverage_calls(coverage, 60, seed),
        "bad": bad_calls(npis[0], coverage),
    }
    return interleave(pools, WEIGHTS, 10_000, seed)


# ---- requests, the two loops, the samplers ----

Send = Callable[[Call], Awaitable[tuple[str, Outcome]]]


def sender(http: aiohttp.ClientSession, url: str, token: str) -> Send:
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    async def send(call: Call) -> tuple[str, Outcome]:
        try:
            async with http.request(
                call.method, url + call.path, data=call.body, headers=headers
            ) as response:
                await response.read()
                return str(response.status), classify(response.status, call.expect)
        except (aiohttp.ClientError, TimeoutError) as error:
            return type(error).__name__, classify(None, call.expect)

    return send
