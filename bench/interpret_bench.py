"""What reading care concepts costs a search: the pure steps of a request (interpretation, place,
query body) timed with concepts read and without, on the same questions in alternating rounds.

Usage: python -m bench.interpret_bench --nppes FILE [--per-class 100] [--rounds 5]

The questions are the relevance harness's (names, organisations, specialties, conditions;
``bench/relevance_questions.py``); nothing is sent anywhere.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from datetime import date
from pathlib import Path

from bench.harness import percentile
from bench.relevance_questions import build_questions, read_directory
from service.search import vocabulary
from service.search.models import SearchRequest
from service.search.places import UnknownPlace
from service.search.query import build_search
from service.search.question import read_question

TODAY = date(2026, 11, 25)


def _requests(nppes: Path, per_class: int) -> dict[bool, list[SearchRequest]]:
    questions = build_questions(read_directory(nppes), per_class, seed=13)
    made: dict[bool, list[SearchRequest]] = {True: [], False: []}
    for question in questions:
        for concepts in (True, False):
            made[concepts].append(
                SearchRequest(query=question.query, location=question.location, concepts=concepts)
            )
    return made


def _times_us(requests: list[SearchRequest]) -> list[float]:
    times: list[float] = []
    for request in requests:
        started = time.perf_counter_ns()
        with contextlib.suppress(UnknownPlace):  # a place the gazetteer does not know
            build_search(read_question(request, TODAY))
        times.append((time.perf_counter_ns() - started) / 1000)
    return times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--nppes", type=Path, required=True)
    parser.add_argument("--per-class", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    vocabulary.preload()
    requests = _requests(args.nppes, args.per_class)
    times: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(args.rounds):
        for concepts in (False, True):
            times[concepts] += _times_us(requests[concepts])
    print(f"{len(requests[True])} questions x {args.rounds} rounds per arm")
    print("| arm | p50 µs | p99 µs | mean µs |")
    print("|---|---:|---:|---:|")
    for concepts, label in ((False, "concepts off"), (True, "concepts on")):
        values = sorted(times[concepts])
        p50, p99 = percentile(values, 0.5), percentile(values, 0.99)
        print(f"| {label} | {p50:,.0f} | {p99:,.0f} | {statistics.fmean(values):,.0f} |")
    extra = percentile(sorted(times[True]), 0.5) - percentile(sorted(times[False]), 0.5)
    print(f"concept reading: {extra / 1000:+.3f} ms p50")


if __name__ == "__main__":
    main()
