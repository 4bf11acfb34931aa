"""Where a search class's time goes inside Elasticsearch: ``took`` per class of the search
bench's mix, and Elasticsearch's profile of the slowest questions, clause by clause.

Usage (an index must already be loaded under --prefix):
    python -m bench.search_took --es-url URL --prefix PREFIX [--repeat 3] [--slowest 3]
        [--classes "name alone,specialty near a point"]

Every question of ``bench.search_bench``'s mix is asked as the service asks it for a first page
(``asked_directly``: the nearest ring and count when they hold the page, else the whole search),
one at a time, ``--repeat`` times, the request cache off; its figure is the fastest repeat (the
least disturbed by anything else on the box). Then the ``--slowest`` questions of each chosen
class are asked once more with ``"profile": true``; the clauses that took longest are printed
with what they spent the time on (scoring, matching, advancing through postings).
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

import aiohttp
import orjson

from bench.search_bench import QUERY_CLASSES, query_mix, question_of
from core.index_contract import IndexNames
from devtools.settings import LauncherSettings
from service.search.nearest import ring_answer, ring_body
from service.search.query import build_search
from service.search.question import Question

NO_CACHE = "request_cache=false"
CLAUSES_SHOWN = 6


async def _post(http: aiohttp.ClientSession, url: str, data: bytes) -> Any:
    async with http.post(url, data=data, headers={"Content-Type": "application/json"}) as response:
        response.raise_for_status()
        return await response.json(loads=orjson.loads)


async def took_ms(http: aiohttp.ClientSession, es_url: str, index: str, question: Question) -> int:
    """Elasticsearch's own time for this question's first page, as the service asks for it."""
    spent = 0
    ring = ring_body(question)
    if ring is not None:
        answer = await _post(http, f"{es_url}/{index}/_search?{NO_CACHE}", orjson.dumps(ring))
        spent = int(answer["took"])
        if ring_answer(question, answer) is not None:
            return spent
    body = orjson.dumps(build_search(question))
    return spent + int((await _post(http, f"{es_url}/{index}/_search?{NO_CACHE}", body))["took"])


async def profiled(http: aiohttp.ClientSession, es_url: str, index: str, question: Question) -> Any:
    """The question's whole search (not its ring), answered with Elasticsearch's profile."""
    body = orjson.dumps({**build_search(question), "profile": True})
    return await _post(http, f"{es_url}/{index}/_search?{NO_CACHE}", body)


def _clauses(node: dict[str, Any], depth: int = 0) -> list[tuple[int, int, dict[str, Any]]]:
    found = [(node["time_in_nanos"], depth, node)]
    for child in node.get("children", []):
        found += _clauses(child, depth + 1)
    return found


def profile_lines(answer: dict[str, Any]) -> list[str]:
    """The costliest clauses of a profiled search, summed over its shards."""
    clauses = [
        clause
        for shard in answer["profile"]["shards"]
        for search in shard["searches"]
        for root in search["query"]
        for clause in _clauses(root)
    ]
    total = max((nanos for nanos, depth, _ in clauses if depth == 0), default=1)
    lines = []
    for nanos, depth, node in sorted(clauses, key=lambda c: -c[0])[1 : CLAUSES_SHOWN + 1]:
        spent = node["breakdown"]
        parts = ", ".join(
            f"{what} {spent.get(what, 0) / 1e6:.1f}"
            for what in ("score", "match", "advance", "next_doc", "build_scorer")
        )
        lines.append(
            f"    - {nanos / 1e6:6.1f} ms ({nanos / total:4.0%}), depth {depth}, {node['type']}: "
            f"{parts} ms; `{node['description'][:100]}`"
        )
    return lines


async def main_async(args: argparse.Namespace) -> None:
    names = IndexNames(args.prefix)
    index = names.alias("search")
    mix = await query_mix(args.es_url, names, args.queries, args.seed)
    asked = [(QUERY_CLASSES[body.pop("_class")], body) for body in mix]
    questions = [question_of(body) for _, body in asked]
    fastest: list[int] = [1 << 30] * len(asked)
    async with aiohttp.ClientSession() as http:
        for _ in range(args.repeat):
            for i, question in enumerate(questions):
                fastest[i] = min(fastest[i], await took_ms(http, args.es_url, index, question))
        print("| class | questions | took p50 | p90 | max |\n|---|---:|---:|---:|---:|")
        for kind in QUERY_CLASSES:
            took = sorted(t for (k, _), t in zip(asked, fastest, strict=True) if k == kind)
            if took:
                p50, p90 = took[len(took) // 2], took[int(len(took) * 0.9)]
                print(f"| {kind} | {len(took)} | {p50} | {p90} | {took[-1]} |")
        for kind in args.classes or QUERY_CLASSES:
            ranked = sorted(
                (i for i, (k, _) in enumerate(asked) if k == kind), key=lambda i: -fastest[i]
            )
            for i in ranked[: args.slowest]:
                answer = await profiled(http, args.es_url, index, questions[i])
                total = answer["hits"]["total"]["value"]
                print(f"\n- {kind}: `{orjson.dumps(asked[i][1]).decode()}`, took {fastest[i]} ms,")
                print(f"  {total} matches; its costliest clauses (profiled run):")
                print("\n".join(profile_lines(answer)))


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--es-url", default=LauncherSettings().elasticsearch_url)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--queries", type=int, default=240)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--slowest", type=int, default=3)
    parser.add_argument("--classes", type=lambda s: s.split(","), default=None)
    args = parser.parse_args(argv)
    if not args.es_url:
        parser.error("--es-url or ELASTICSEARCH_URL is required")
    return args


def main(argv: list[str] | None = None) -> None:
    asyncio.run(main_async(arguments(argv)))


if __name__ == "__main__":
    main()
