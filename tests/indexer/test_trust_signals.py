"""The trust signals against known truth: a Plan-Net export with faults injected by the
generator (its truth file, written by the generator, not by the code under test), loaded with
the NPPES file it was made from; every injected fault must be flagged with its code (recall
>= 95 % per code) and providers no fault touched must not be (false positives <= 1 % per
code). The stored documents are read from Elasticsearch directly."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_scan

from core.index_contract import IndexNames
from indexer.generate.nppes import generate_nppes
from indexer.generate.plan_net import generate_plan_net
from indexer.generate.plan_net_faults import DEFAULT_RATES
from indexer.load.run import LoadOptions, SourceFiles, load
from tests.conftest import FaultySample

DIRECTORY = "faulty"
PROVIDER_CODES = ("npi_deactivated", "name_differs_from_nppes", "many_locations")
MIN_RECALL, MAX_FALSE_POSITIVES = 0.95, 0.01


@dataclasses.dataclass
class Served:
    providers: dict[str, dict[str, Any]]  # NPI -> the stored provider
    locations: dict[str, list[dict[str, Any]]]  # NPI -> its stored locations

    def notes(self, npi: str) -> set[str]:
        return {n["code"] for n in self.providers[npi].get("dataQuality", [])}

    def reasons(self, npi: str) -> Iterator[tuple[dict[str, Any], list[str]]]:
        for location in self.locations[npi]:
            yield location, location["confidence"]["reasons"]


async def _served(es: AsyncElasticsearch, names: IndexNames) -> Served:
    providers, locations = {}, {}
    query: dict[str, Any] = {"query": {"match_all": {}}}
    async for hit in async_scan(es, index=names.alias("providers"), query=query, size=2000):
        providers[hit["_id"]] = orjson.loads(hit["_source"]["provider"])
        locations[hit["_id"]] = orjson.loads(hit["_source"]["locations"])
    return Served(providers, locations)


def _location_addresses(export: Path) -> dict[str, tuple[str, str]]:
    """Location id -> (first line, ZIP5) as the export publishes it."""
    found = {}
    with open(export / "Location.ndjson", encoding="utf-8") as handle:
        for line in handle:
            resource = json.loads(line)
            address = resource["address"]
            found[resource["id"]] = (address["line"][0], address["postalCode"][:5])
    return found


def _same_address(location: dict[str, Any], published: tuple[str, str]) -> bool:
    address = location["address"]
    return (address["line1"], (address["zip"] or "")[:5]) == published


async def _generated_and_loaded(
    es: AsyncElasticsearch, names: IndexNames, sources: SourceFiles, tmp_path: Path
) -> tuple[Path, Path]:
    export, truth_file = tmp_path / DIRECTORY, tmp_path / "truth.json"
    assert sources.nppes is not None
    generate_plan_net(sources.nppes_file, export, seed=5, faults=DEFAULT_RATES, truth=truth_file)
    with_directory = dataclasses.replace(sources, plan_net=export, plan_net_name=DIRECTORY)
    await load(es, with_directory, LoadOptions(names=names, keep_versions=1))
    return export, truth_file


async def _check(es: AsyncElasticsearch, names: IndexNames, export: Path, truth_file: Path) -> None:
    truth = json.loads(await asyncio.to_thread(truth_file.read_text))
    served = await _served(es, names)
    addresses = _location_addresses(export)

    touched = {f["npi"] for f in truth["faults"] if "npi" in f}
    touched |= {f["nppes"] for f in truth["faults"] if f["code"] == "npi_deactivated"}
    touched |= {npi for f in truth["faults"] if f["code"] == "no_phone" for npi in f["npis"]}
    untouched = [npi for npi in served.providers if npi not in touched]
    assert len(untouched) > len(touched)

    def flagged(code: str, npi: str) -> bool:
        if code in PROVIDER_CODES:
            return code in served.notes(npi)
        return any(code in reasons for _, reasons in served.reasons(npi))

    for code in (*PROVIDER_CODES, "address_unconfirmed"):
        injected = [f for f in truth["faults"] if f["code"] == code and f["injected"]]
        assert len(injected) >= 5, code  # enough to measure
        found = [f for f in injected if f["npi"] in served.providers and flagged(code, f["npi"])]
        assert len(found) >= MIN_RECALL * len(injected), (code, len(found), len(injected))
        wrong = [npi for npi in untouched if flagged(code, npi)]
        assert len(wrong) <= MAX_FALSE_POSITIVES * len(untouched), (code, wrong[:5])

    moved = [f for f in truth["faults"] if f["code"] == "address_unconfirmed"]
    for fault in moved:  # the unconfirmed location is the moved address, not another one
        published = addresses[fault["location"].removeprefix("Location/")]
        assert any(
            _same_address(location, published) and "address_unconfirmed" in reasons
            for location, reasons in served.reasons(fault["npi"])
        ), fault

    # A Location published without a phone: each practitioner listed there has the reason on
    # the location at that address (whatever NPPES gives, the payer's listing lacks one).
    phoneless = [f for f in truth["faults"] if f["code"] == "no_phone"]
    listed = [(f, npi) for f in phoneless for npi in f["npis"] if npi in served.providers]
    assert len([f for f in phoneless if f["injected"]]) >= 5
    found_phone = [
        (f, npi)
        for f, npi in listed
        if any(
            _same_address(location, addresses[f["location"].removeprefix("Location/")])
            and "no_phone" in reasons
            for location, reasons in served.reasons(npi)
        )
    ]
    assert len(found_phone) >= MIN_RECALL * len(listed), (len(found_phone), len(listed))
    wrong_phone = [
        npi
        for npi in untouched
        if any("no_phone" in reasons and location["phoneNumbers"]
               for location, reasons in served.reasons(npi))
    ]  # fmt: skip
    assert len(wrong_phone) <= MAX_FALSE_POSITIVES * len(untouched), wrong_phone[:5]


async def test_the_faults_of_the_sample_are_flagged(
    es: AsyncElasticsearch, faulty_sample: FaultySample
) -> None:
    await _check(es, faulty_sample.names, faulty_sample.export, faulty_sample.truth)


@pytest.mark.parametrize("providers", [6_000])
async def test_the_faults_of_a_larger_generated_file_are_flagged(
    es: AsyncElasticsearch,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    tmp_path: Path,
    providers: int,
) -> None:
    nppes = tmp_path / "npidata_pfile_generated.csv.gz"
    generate_nppes(sample_sources.nppes_file, nppes, providers, seed=2)
    sources = dataclasses.replace(sample_sources, nppes=nppes)
    export, truth = await _generated_and_loaded(es, index_names, sources, tmp_path)
    await _check(es, index_names, export, truth)
