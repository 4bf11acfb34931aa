"""Elasticsearch's own time (``took``) for one question asked as the FHIR API and as /v2 ask it:
a specialty near a point, nearest first, 20 results (``PractitionerRole?specialty=CODE&near=
lat|lng|R|mi`` and ``{location, radius: R, taxonomyCode, entityType: individual, sort:
distance}``, R 10 miles unless ``--radius``). The bodies are built by the query code of the
tree on PYTHONPATH and sent straight to Elasticsearch, the two alternating, each question once
per round; what the service adds around them is fhir_bench's business.

Usage (an index loaded under --prefix by the same tree):
    python -m bench.near_took --prefix PREFIX [--questions 200] [--rounds 3] [--radius 10]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import statistics
from datetime import date
from typing import Any

import aiohttp

from bench.fhir_bench import sample_questions
from core.index_contract import IndexNames
from devtools.settings import LauncherSettings
from service.fhir.search.query import build_query
from service.search.models import SearchRequest
from service.search.query import build_search
from service.search.question import read_question

PAGE = 20
TODAY = date(2026, 7, 1)


def _read_search() -> Any:
    """The FHIR query-string reader (service.fhir.query_string before the search package,
    service.fhir.params before it was named query_string)."""
    names = ("service.fhir.search.query_string", "service.fhir.query_string", "service.fhir.params")
    for name in names:
        try:
            return importlib.import_module(name).read_search
        except ModuleNotFoundError:
            continue
    raise RuntimeError("no FHIR query-string reader in this tree")


def bodies(
    lat: float, lng: float, code: str, miles: float
) -> tuple[dict[str, Any], dict[str, Any]]:
    near = [("near", f"{lat}|{lng}|{miles}|mi"), ("specialty", code)]
    fhir = build_query(_read_search()("PractitionerRole", near), PAGE + 1, None, TODAY)
    request = SearchRequest.model_validate(
        {
            "location": {"lat": lat, "lng": lng},
            "radius": miles,
            "taxonomyCode": code,
            "entityType": "individual",
            "sort": "distance",
            "pageSize": PAGE,
        }
    )
    return fhir, build_search(read_question(request, TODAY))


def _summary(name: str, took: list[int]) -> str:
    ordered = sorted(took)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    mean = statistics.fmean(ordered)  # took is whole milliseconds: the mean resolves less
    p50 = statistics.median(ordered)
    return f"{name}: mean {mean:.2f} ms, p50 {p50:.1f}, p99 {p99}, n {len(ordered)}"


async def main_async(args: argparse.Namespace) -> None:
    names = IndexNames(args.prefix)
    questions = await sample_questions(args.es_url, names, args.questions, args.seed)
    url = f"{args.es_url}/{names.alias('search')}/_search?request_cache=false"
    took: dict[str, list[int]] = {"fhir": [], "v2": []}
    async with aiohttp.ClientSession() as http:
        for _ in range(args.rounds):
            for lat, lng, code, _words, _state in questions:
                fhir, v2 = bodies(lat, lng, code, args.radius)
                for arm, body in (("fhir", fhir), ("v2", v2)):
                    async with http.post(url, json=body) as response:
                        took[arm].append(int((await response.json())["took"]))
    print(f"{len(questions)} questions x {args.rounds} rounds, prefix {args.prefix}")
    for arm, values in took.items():
        print(_summary(arm, values))


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.near_took", description=__doc__)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--es-url", default=LauncherSettings().elasticsearch_url)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--radius", type=float, default=10.0, help="miles")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    if not args.es_url:
        parser.error("--es-url or ELASTICSEARCH_URL is required")
    return args


def main(argv: list[str] | None = None) -> None:
    asyncio.run(main_async(arguments(argv)))


if __name__ == "__main__":
    main()
