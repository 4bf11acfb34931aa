"""The trust signals' recall and precision against a generator's truth file: a Plan-Net export
made with ``generate-plan-net --faults ... --truth T`` and loaded under a prefix
(``provider-indexer --prefix P load --source-dir D --plan-net EXPORT --plan-net-name NAME``);
every provider is read back from the lookup index and compared with the truth, per code.

Usage:
    python -m bench.trust_bench --prefix P --truth T [--es-url URL]

Per code: injected faults, those flagged (recall), the providers no fault touched that carry
it anyway (false positives, and their rate among the untouched), precision.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

import orjson
from elasticsearch.helpers import async_scan

from core.es_client import make_client
from core.index_contract import IndexNames

PROVIDER_CODES = ("npi_deactivated", "name_differs_from_nppes", "many_locations")
LOCATION_CODES = ("address_unconfirmed", "no_phone")


async def _flags(url: str, names: IndexNames) -> dict[str, set[str]]:
    """NPI -> its provider codes and the reasons of any of its locations."""
    found: dict[str, set[str]] = {}
    es = make_client(url)
    try:
        query: dict[str, Any] = {"query": {"match_all": {}}}
        index = names.alias("providers")
        async for hit in async_scan(es, index=index, query=query, size=5000):
            source = hit["_source"]
            codes = {n["code"] for n in orjson.loads(source["provider"]).get("dataQuality", [])}
            for location in orjson.loads(source["locations"]):
                codes.update(location["confidence"]["reasons"])
            found[hit["_id"]] = codes
    finally:
        await es.close()
    return found


def _touched(truth: dict[str, Any]) -> set[str]:
    touched = {f["npi"] for f in truth["faults"] if "npi" in f}
    touched |= {f["nppes"] for f in truth["faults"] if f["code"] == "npi_deactivated"}
    return touched | {n for f in truth["faults"] if f["code"] == "no_phone" for n in f["npis"]}


def report(flags: dict[str, set[str]], truth: dict[str, Any]) -> list[dict[str, Any]]:
    touched = _touched(truth)
    untouched = [npi for npi in flags if npi not in touched]
    rows = []
    for code in (*PROVIDER_CODES, *LOCATION_CODES):
        if code == "no_phone":
            expected = {n for f in truth["faults"] if f["code"] == code for n in f["npis"]}
        else:
            expected = {f["npi"] for f in truth["faults"] if f["code"] == code and f["injected"]}
        found = {npi for npi in expected if code in flags.get(npi, ())}
        wrong = [npi for npi in untouched if code in flags[npi]]
        flagged = len(found) + len(wrong)
        rows.append(
            {
                "code": code,
                "injected": len(expected),
                "flagged": len(found),
                "recall": len(found) / len(expected) if expected else None,
                "false_positives": len(wrong),
                "false_positive_rate": len(wrong) / len(untouched) if untouched else None,
                "precision": len(found) / flagged if flagged else None,
            }
        )
    return rows


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f} %"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--es-url", default="http://127.0.0.1:9200")
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--truth", type=Path, required=True, help="the generator's truth file")
    asyncio.run(_run(parser.parse_args()))


async def _run(args: argparse.Namespace) -> None:
    started = time.monotonic()
    flags = await _flags(args.es_url, IndexNames(args.prefix))
    truth = json.loads(args.truth.read_text())
    rows = report(flags, truth)
    print(f"{len(flags):,} providers read in {time.monotonic() - started:.1f} s")
    print("| code | injected | flagged | recall | false positives (rate) | precision |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in rows:
        print(
            f"| {row['code']} | {row['injected']:,} | {row['flagged']:,} |"
            f" {_percent(row['recall'])} | {row['false_positives']:,}"
            f" ({_percent(row['false_positive_rate'])}) | {_percent(row['precision'])} |"
        )


if __name__ == "__main__":
    main()
