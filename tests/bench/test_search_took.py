"""bench.search_took against the sample index: Elasticsearch's time for a question as the service
asks it, and its profile read back as the costliest clauses, costliest first."""

from __future__ import annotations

import re

import aiohttp

from bench.search_bench import question_of
from bench.search_took import CLAUSES_SHOWN, profile_lines, profiled, took_ms
from core.index_contract import IndexNames
from indexer.load.run import LoadReport

TIME = re.compile(r"^ +- +([0-9.]+) ms \( *[0-9]+%\), depth [0-9]+, \w+: score ")


async def test_took_and_the_costliest_clauses_of_a_search(
    es_url: str, loaded_sample: tuple[IndexNames, LoadReport]
) -> None:
    names, _ = loaded_sample
    index = names.alias("search")
    specialty = question_of({"query": "family medicine", "location": "10013", "radius": 25})
    nearest = question_of({"location": "10013", "radius": 5, "sort": "distance"})
    async with aiohttp.ClientSession() as http:
        took = [await took_ms(http, es_url, index, q) for q in (specialty, nearest)]
        answer = await profiled(http, es_url, index, specialty)
    assert all(isinstance(t, int) and t >= 0 for t in took)
    assert answer["hits"]["total"]["value"] > 0
    lines = profile_lines(answer)
    assert 0 < len(lines) <= CLAUSES_SHOWN
    times = [float(match.group(1)) for line in lines if (match := TIME.match(line))]
    assert len(times) == len(lines), lines
    assert times == sorted(times, reverse=True)
    assert any("taxonomyCodes" in line for line in lines)  # the specialty's filter is costed


def test_profile_lines_rank_clauses_below_the_root_costliest_first() -> None:
    def node(kind: str, ms: float, *children: dict[str, object]) -> dict[str, object]:
        return {
            "type": kind,
            "description": kind.lower(),
            "time_in_nanos": int(ms * 1e6),
            "breakdown": {"score": int(ms * 1e6 / 2)},
            "children": list(children),
        }

    root = node("BooleanQuery", 10, node("TermQuery", 2), node("Wrapper", 7, node("Inner", 5)))
    answer = {"profile": {"shards": [{"searches": [{"query": [root]}]}]}}
    lines = profile_lines(answer)
    assert [line.split(", ")[2].split(":")[0] for line in lines] == [
        "Wrapper",
        "Inner",
        "TermQuery",
    ]
    assert "( 70%)" in lines[0] and "depth 1" in lines[0] and "depth 2" in lines[1]
