"""Every bench's command line still works: ``--help`` of each (its ``main``), and a seconds-long
run on the loaded sample of each that can run on it: its arguments parsed as its command line
parses them, then its run, in this process (no interpreter start per bench), against the session's
node; the four service harnesses measure one service started by the harness's own code. What is
checked is the shape of the report and that nothing failed; the figures themselves are the
benches' business (BENCHMARKS.md), never asserted here: the services these runs start wait on
Elasticsearch as long as every other test's service (``TEST_ES_TIMEOUT_S``), not the deployed
sub-second budget, so a busy machine makes them slow, never failed; each arm makes one request
at least, however late its slice starts; and each server serves on a socket bound before it
starts (``--port 0``), so no other process can take its port. The benches that need minutes or
a cluster (reload, update, soak, node loss) are checked by ``--help`` only."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import AsyncIterator
from types import ModuleType

import pytest

from bench import (
    bulk_framing_bench,
    index_costs,
    indexer_bench,
    interpret_bench,
    outage_bench,
    relevance,
    search_took,
)
from bench.harness import service_process
from core.index_contract import IndexNames
from indexer.load.run import LoadReport
from tests.conftest import SAMPLE_DIR, TEST_ES_TIMEOUT_S

REPO = SAMPLE_DIR.parent.parent
NPPES = str(SAMPLE_DIR / "npidata_pfile_sample.csv.gz")

# Each bench with a command line (bench.floor_server is lookup_bench's helper, run by --floor).
COMMANDS = [
    "bulk_framing_bench",
    "change_bench",
    "coverage_bench",
    "export_bench",
    "fhir_bench",
    "index_costs",
    "indexer_bench",
    "interpret_bench",
    "load_compare",
    "lookup_bench",
    "near_took",
    "node_loss",
    "outage_bench",
    "plans_bench",
    "relevance",
    "reload_bench",
    "search_bench",
    "search_took",
    "soak",
    "trust_bench",
    "update_bench",
    "update_compare",
]


def test_every_bench_with_a_command_line_is_listed() -> None:
    found = {
        path.stem
        for path in (REPO / "bench").glob("*.py")
        if 'if __name__ == "__main__":' in path.read_text(encoding="utf-8")
    }
    assert found - {"floor_server"} == set(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_help(
    name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = importlib.import_module(f"bench.{name}")
    monkeypatch.setattr(sys, "argv", [f"python -m bench.{name}", "--help"])
    with pytest.raises(SystemExit) as exited:
        module.main()
    assert exited.value.code == 0
    shown = capsys.readouterr().out
    assert shown.startswith(f"usage: python -m bench.{name}")
    assert "--help" in shown


# A table row of one client: | arm | 1 | requests | errors | ...
ROW = re.compile(r"^\| ([^|]+?) \| 1 \| ([0-9]+) \| ([0-9]+) \|", re.M)


@pytest.fixture(scope="module")
async def bench_service(
    es_url: str, loaded_sample: tuple[IndexNames, LoadReport]
) -> AsyncIterator[str]:
    """The service as the harness starts it (bench.harness.service_process), on the sample."""
    prefix = loaded_sample[0].prefix
    async with service_process(es_url, prefix, 0, es_timeout_s=TEST_ES_TIMEOUT_S) as (url, _):
        yield url


@pytest.mark.parametrize(
    ("name", "extra", "arms"),
    [
        ("search_bench", ["--queries", "20"], 2),
        ("coverage_bench", ["--bids", "2", "--npis", "5"], 3),
        ("lookup_bench", ["--npis", "20", "--floor", "--port", "0"], 3),
        ("fhir_bench", ["--questions", "10"], 4),
        ("plans_bench", ["--zip", "29201"], 2),
    ],
)
async def test_a_service_harness_runs_for_seconds_on_the_sample(
    es_url: str,
    loaded_sample: tuple[IndexNames, LoadReport],
    bench_service: str,
    capsys: pytest.CaptureFixture[str],
    name: str,
    extra: list[str],
    arms: int,
) -> None:
    """Every arm (the service's views, Elasticsearch straight, lookup_bench's --floor server,
    which it starts) answered and none failed."""
    bench: ModuleType = importlib.import_module(f"bench.{name}")
    args = bench.arguments(
        [
            *("--es-url", es_url, "--prefix", loaded_sample[0].prefix, "--levels", "1"),
            *("--seconds", "0.5", "--warm-up", "0.2", "--service-url", bench_service),
            *("--es-timeout", str(TEST_ES_TIMEOUT_S)),
            *extra,
        ]
    )
    await bench.main_async(args)
    out = capsys.readouterr().out
    assert "| target | clients | requests | errors |" in out, out
    rows = ROW.findall(out)
    assert len({arm for arm, _, _ in rows}) == arms, out
    assert all(int(requests) > 0 and errors == "0" for _, requests, errors in rows), out


async def test_search_took_reports_the_sample_questions(
    es_url: str, loaded_sample: tuple[IndexNames, LoadReport], capsys: pytest.CaptureFixture[str]
) -> None:
    prefix = loaded_sample[0].prefix
    args = ["--es-url", es_url, "--prefix", prefix, "--queries", "10", "--repeat", "1"]
    await search_took.main_async(search_took.arguments(args))
    out = capsys.readouterr().out
    assert re.search(r"[0-9]+ ms", out), out


async def test_index_costs_reads_the_sample_indices(
    es_url: str, loaded_sample: tuple[IndexNames, LoadReport]
) -> None:
    args = index_costs.arguments(["--es-url", es_url, "--prefix", loaded_sample[0].prefix])
    out = index_costs.table(await index_costs.index_costs(args.es_url, args.prefix), None)
    assert all(kind in out for kind in ("search", "providers", "coverage", "plans")), out


async def test_outage_bench_runs_one_round(
    es_url: str, loaded_sample: tuple[IndexNames, LoadReport]
) -> None:
    args = outage_bench.arguments(["--prefix", loaded_sample[0].prefix, "--rounds", "1"])
    out = "\n".join(await outage_bench.run(es_url, args.prefix, args.rounds))
    assert "| service: node gone (connections reset) |" in out, out
    assert "| service: first answer after recovery |" in out, out


async def test_relevance_runs_a_few_questions_per_class(
    es_url: str, loaded_sample: tuple[IndexNames, LoadReport]
) -> None:
    args = relevance.parse_args(
        [
            *("--es-url", es_url, "--prefix", loaded_sample[0].prefix, "--nppes", NPPES),
            *("--per-class", "3", "--port", "0"),
        ]
    )
    report = await relevance.main_async(args)
    assert report and all(isinstance(line, str) for line in report)


def test_interpret_bench_runs_on_the_sample(capsys: pytest.CaptureFixture[str]) -> None:
    interpret_bench.main(["--nppes", NPPES, "--per-class", "5", "--rounds", "1"])
    assert "| arm | p50 µs | p99 µs | mean µs |" in capsys.readouterr().out


def test_indexer_bench_streams_the_sample(capsys: pytest.CaptureFixture[str]) -> None:
    indexer_bench.main(["--nppes", NPPES, "--stream-only"])
    assert capsys.readouterr().out.strip()


async def test_bulk_framing_bench_runs_one_round(capsys: pytest.CaptureFixture[str]) -> None:
    await bulk_framing_bench.run(
        bulk_framing_bench.arguments(["--actions", "2000", "--rounds", "1"])
    )
    out = capsys.readouterr().out
    assert re.search(r"^old +CPU .* µs/action", out, re.M), out
    assert re.search(r"^new +CPU .* µs/action", out, re.M), out
