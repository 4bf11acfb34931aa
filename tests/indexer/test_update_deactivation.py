"""A weekly NPPES file that deactivates an NPI a payer's directory lists: the payer's listing
stays, flagged ``npi_deactivated`` (its source the directory), every location of it lowered to
1, the NPPES address gone, the directory's scorecard counting it; and what the update leaves
equals a full load of the merged file with the same directory. The rows and the export are read
here with csv and json."""

from __future__ import annotations

import csv
import dataclasses
import json
from pathlib import Path
from typing import Any

import orjson
from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_scan

from core.changes import unstamped
from core.index_contract import IndexKind, IndexNames
from indexer.generate.plan_net import generate_plan_net
from indexer.load.run import LoadOptions, SourceFiles, load
from indexer.update.nppes import update_nppes
from indexer.update.options import UpdateOptions
from tests.indexer.update_files import merge
from tests.source_rows import active_rows, nppes_rows

DIRECTORY = "acme"


def _listed_npis(export: Path) -> set[str]:
    npis = set()
    with open(export / "Practitioner.ndjson", encoding="utf-8") as handle:
        for line in handle:
            for identifier in json.loads(line).get("identifier", []):
                npis.add(identifier["value"])
    return npis


def _deactivating_week(nppes: Path, npis: list[str], out: Path) -> Path:
    """A weekly file deactivating ``npis``: a deactivated row holds its NPI and dates only."""
    header = list(nppes_rows(nppes)[0])
    with open(out, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, header, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
        writer.writeheader()
        for npi in npis:
            writer.writerow({**dict.fromkeys(header, ""), "NPI": npi,
                             "NPI Deactivation Date": "02/20/2024"})  # fmt: skip
    return out


async def _sources(es: AsyncElasticsearch, names: IndexNames, kind: IndexKind) -> dict[str, Any]:
    return {
        hit["_id"]: hit["_source"]
        async for hit in async_scan(es, index=names.alias(kind), query={"query": {"match_all": {}}})
    }


async def _scorecard(es: AsyncElasticsearch, names: IndexNames) -> dict[str, Any]:
    found = await es.get(index=names.alias("directories"), id=f"plan-net:{DIRECTORY}")
    checks: dict[str, Any] = found["_source"]["checks"]
    return checks


async def test_a_weekly_deactivation_flags_the_payers_listing(
    es: AsyncElasticsearch, index_names: IndexNames, sample_sources: SourceFiles, tmp_path: Path
) -> None:
    export = tmp_path / DIRECTORY
    generate_plan_net(sample_sources.nppes_file, export, seed=3)
    listed = _listed_npis(export)
    individuals = [
        row["NPI"]
        for row in active_rows(sample_sources.nppes_file)
        if row["Entity Type Code"] == "1" and row["NPI"] in listed
    ]
    gone = individuals[:3]
    assert len(gone) == 3
    sources = dataclasses.replace(sample_sources, plan_net=export, plan_net_name=DIRECTORY)
    await load(es, sources, LoadOptions(names=index_names, keep_versions=1))
    before = await _sources(es, index_names, "providers")
    assert all("dataQuality" not in orjson.loads(before[npi]["provider"]) for npi in gone)
    assert (await _scorecard(es, index_names))["npi_deactivated"]["count"] == 0

    week = _deactivating_week(sample_sources.nppes_file, gone, tmp_path / "week.csv")
    options = UpdateOptions(names=index_names, reject_file=tmp_path / "r.csv")
    report = await update_nppes(es, week, options)
    assert report.outcomes["deactivated"] == 3 and report.removed == 0

    after = await _sources(es, index_names, "providers")
    for npi in gone:
        provider = orjson.loads(after[npi]["provider"])
        locations = orjson.loads(after[npi]["locations"])
        assert provider["dataQuality"] == [
            {"code": "npi_deactivated", "source": f"plan-net:{DIRECTORY}", "value": npi}
        ]
        assert "nppes" not in provider["sources"] and locations
        for location in locations:
            assert location["sources"] == [f"plan-net:{DIRECTORY}"]
            assert location["confidence"]["score"] == 1
            assert "npi_deactivated" in location["confidence"]["reasons"]

    # The directory's scorecard follows: the three it lists are counted, with their NPIs.
    deactivated = (await _scorecard(es, index_names))["npi_deactivated"]
    assert deactivated["count"] == 3 and set(deactivated["examples"]) == set(gone)

    merged = merge(sample_sources.nppes_file, [week], tmp_path / "npidata_merged.csv")
    full = IndexNames(f"{index_names.prefix}-full")  # dropped with the test's prefix
    replaced = dataclasses.replace(sources, nppes=merged)
    await load(es, replaced, LoadOptions(names=full, keep_versions=1))
    for kind in ("providers", "search"):
        updated, loaded = await _sources(es, index_names, kind), await _sources(es, full, kind)
        assert set(updated) == set(loaded), kind
        different = [npi for npi in loaded if unstamped(updated[npi]) != unstamped(loaded[npi])]
        assert not different, _diff(
            unstamped(updated[different[0]]), unstamped(loaded[different[0]])
        )


def _diff(a: Any, b: Any, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in a.keys() | b.keys() for d in _diff(a.get(k), b.get(k), f"{path}.{k}")]
    return [] if a == b else [f"{path}: {str(a)[:200]} != {str(b)[:200]}"]
