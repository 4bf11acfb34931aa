"""Search relevance harness (issue 13): the service vs. a naive Elasticsearch baseline.

Usage (an index must already be loaded under --prefix from the same NPPES file):
    python -m bench.relevance --prefix rel134k --nppes FILE [--per-class 200] [--seed 13]
        [--out FILE] [--show-misses 5]

It builds questions from the NPPES file itself (``bench/relevance_questions.py``: real
providers drawn with a fixed seed, names exact and with one typo, organisations, specialty lay
terms and misspellings in the busiest cities; the specialty answer key is the harness's own
table, ``bench/relevance_specialties.py``; conditions and visit reasons come from
``bench/condition_key.json``), starts the service as its own process (as deployed,
``bench/harness.py``) and asks every question three times: through the service, through the
service with ``"concepts": false`` (as it was before it read conditions), then as one fuzzy
``multi_match`` sent straight to Elasticsearch with the same radius filter around the point the
service resolved (the baseline; the harness's own ZIP-centroid reading when the service
refused the place). Per class it reports hit@1, hit@3, MRR and, where a specialty is asked,
primary-specialty precision@10 (``bench/relevance_report.py``). Loopback only; every request
has a timeout; at most 8 x --per-class questions per arm.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import time
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from bench.harness import running_service
from bench.relevance_questions import RADIUS_MILES, Question, build_questions, read_directory
from bench.relevance_report import EQUIVALENCE, TOP, Answer, misses, score, table, weak_terms
from core.index_contract import IndexNames
from devtools.settings import LauncherSettings
from service.web.auth import mint_token
from service.web.settings import Settings

BASELINE_FIELDS = ["fullName", "names", "organizations", "specialtyText"]
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
Job = Callable[[], Awaitable[Answer]]


def baseline_body(text: str, point: tuple[float, float]) -> dict[str, Any]:
    """The naive arm: one fuzzy multi_match, the service's radius filter, the top 10 NPIs."""
    lat, lng = point
    radius = {
        "geo_distance": {
            "distance": f"{RADIUS_MILES}mi",
            "points": {"lat": lat, "lon": lng},
        }
    }
    return {
        "size": TOP,
        "_source": ["npi"],
        "track_total_hits": False,
        "query": {
            "bool": {
                "must": {
                    "multi_match": {"query": text, "fields": BASELINE_FIELDS, "fuzziness": "AUTO"}
                },
                "filter": radius,
            }
        },
    }


async def _post(
    http: aiohttp.ClientSession, url: str, body: dict[str, Any], headers: dict[str, str]
) -> tuple[int, Any]:
    try:
        async with http.post(url, json=body, headers=headers) as response:
            return response.status, await response.json(content_type=None)
    except (aiohttp.ClientError, TimeoutError, ValueError):
        return 0, None


async def ask_service(
    http: aiohttp.ClientSession,
    url: str,
    headers: dict[str, str],
    question: Question,
    concepts: bool = True,
) -> Answer:
    body = {
        "query": question.query,
        "location": question.location,
        "radius": RADIUS_MILES,
        "pageSize": TOP,
        "facets": False,
        "concepts": concepts,
    }
    status, data = await _post(http, url, body, headers)
    if status == 400:
        return Answer("bad_request")
    try:
        assert status == 200
        place = data["interpretedQuery"].get("location") or {}
        point = (place["lat"], place["lng"]) if "lat" in place else None
        return Answer("ok", tuple(tuple(r["npis"]) for r in data["results"][:TOP]), point)
    except (AssertionError, KeyError, TypeError):
        return Answer("error")


async def ask_baseline(
    http: aiohttp.ClientSession, url: str, question: Question, point: tuple[float, float] | None
) -> Answer:
    if point is None:  # neither the service nor the ZIP table knows the place
        return Answer("bad_request")
    status, data = await _post(http, url, baseline_body(question.query, point), {})
    try:
        assert status == 200
        return Answer("ok", tuple((hit["_source"]["npi"],) for hit in data["hits"]["hits"]))
    except (AssertionError, KeyError, TypeError):
        return Answer("error")


async def bounded(jobs: Sequence[Job], concurrency: int) -> list[Answer]:
    gate = asyncio.Semaphore(concurrency)

    async def one(job: Job) -> Answer:
        async with gate:
            return await job()

    return list(await asyncio.gather(*(one(job) for job in jobs)))


def _commit() -> str:
    def git(*argv: str) -> str:
        done = subprocess.run(["git", *argv], capture_output=True, text=True, timeout=10)
        return done.stdout.strip()

    try:
        head = git("rev-parse", "--short", "HEAD") or "unknown"
        dirty = git("status", "--porcelain", "--", "service", "core", "indexer")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + (" (with uncommitted changes in service/core/indexer)" if dirty else "")


async def main_async(args: argparse.Namespace) -> list[str]:
    started = time.perf_counter()
    entries = read_directory(args.nppes)
    questions = build_questions(entries, args.per_class, args.seed)
    built = time.perf_counter()
    search_url = f"{args.es_url.rstrip('/')}/{IndexNames(args.prefix).alias('search')}/_search"
    headers = {"Authorization": f"Bearer {mint_token(Settings())}"}
    timeout = aiohttp.ClientTimeout(total=args.timeout)
    async with running_service(args) as url, aiohttp.ClientSession(timeout=timeout) as http:
        service_url = f"{url}/v2/providers/search"
        service_answers = await bounded(
            [partial(ask_service, http, service_url, headers, q) for q in questions],
            args.concurrency,
        )
        asked = time.perf_counter()
        without_answers = await bounded(
            [partial(ask_service, http, service_url, headers, q, False) for q in questions],
            args.concurrency,
        )
        baseline_answers = await bounded(
            [
                partial(ask_baseline, http, search_url, q, a.point or q.point)
                for q, a in zip(questions, service_answers, strict=True)
            ],
            args.concurrency,
        )
    done = time.perf_counter()
    service = [score(q, a, entries) for q, a in zip(questions, service_answers, strict=True)]
    baseline = [score(q, a, entries) for q, a in zip(questions, baseline_answers, strict=True)]
    without = [score(q, a, entries) for q, a in zip(questions, without_answers, strict=True)]
    fields = ", ".join(BASELINE_FIELDS)
    return [
        f"Index `{args.prefix}`, questions from `{args.nppes.name}` ({len(entries):,} active "
        f"providers with a known US practice ZIP), --per-class {args.per_class} --seed "
        f"{args.seed}, radius {RADIUS_MILES} mi, top {TOP}; code at commit {_commit()}.",
        "",
        EQUIVALENCE,
        "",
        "**service** (`POST /v2/providers/search`)",
        "",
        *table(questions, service),
        "",
        *weak_terms(questions, service),
        "",
        '**service without the concept reading** (`"concepts": false`: the service as it was '
        "before conditions were read)",
        "",
        *table(questions, without),
        "",
        f"**baseline** (one `multi_match`, fuzziness AUTO, over {fields}; same radius filter; "
        "straight to Elasticsearch)",
        "",
        *table(questions, baseline),
        "",
        f"Time: file and questions {built - started:.1f} s, service arm {asked - built:.1f} s, "
        f"the other two arms {done - asked:.1f} s ({len(questions)} questions per arm, "
        f"{args.concurrency} at a time).",
        *misses(questions, service, baseline, entries, args.show_misses),
    ]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--es-url", default=LauncherSettings().elasticsearch_url)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--nppes", type=Path, required=True)
    parser.add_argument("--per-class", type=int, default=200)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--show-misses", type=int, default=3)
    parser.add_argument("--port", type=int, default=8134)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per request")
    args = parser.parse_args(argv)
    if not args.es_url:
        parser.error("--es-url or ELASTICSEARCH_URL is required")
    if urlsplit(args.es_url).hostname not in LOOPBACK:
        parser.error("--es-url must be a loopback address")
    if not 1 <= args.per_class <= 1000 or not 1 <= args.concurrency <= 64:
        parser.error("--per-class must be 1..1000 and --concurrency 1..64")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    report = "\n".join(asyncio.run(main_async(args)))
    print(report)
    if args.out:
        args.out.write_text(report + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
