"""What an update leaves of the plans it does not change: their ``changedAt`` (an incremental
``$export`` gives a plan when what /fhir serves of it changed, not at every update; core.changes)
and a network flag that says whether rows name the plan (``networkRows``), settled once the
update's rows are, as a load sets it. Which plans use which network is read from the export's
files (tests.plan_net_rows), never from the indexer."""

from __future__ import annotations

import csv
import gzip
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_scan

import tests.conftest as shared
from core.index_contract import IndexNames
from indexer.load.run import LoadOptions, SourceFiles, load
from indexer.update.coverage import update_coverage
from indexer.update.options import UpdateOptions
from indexer.update.plan_net import update_plan_net
from tests.plan_net_rows import PLAN_NET_DIR, resources
from tests.source_rows import active_rows, canonical_bid, coverage_rows

NAME = "payer"
EMPTIED = "Organization/plannet-network-HPID040000"  # no role, two affiliations name it
OTHER_SOURCE = "operator-coverage.csv"


def _plain(directory: Path) -> Path:
    """The reference export, uncompressed so that a test can edit it."""
    directory.mkdir(parents=True)
    for path in PLAN_NET_DIR.glob("*.ndjson.gz"):
        (directory / path.stem).write_bytes(gzip.decompress(path.read_bytes()))
    return directory


def _using(network: str) -> set[str]:
    """The payer's identifiers of the plans whose network this is (InsurancePlan.network)."""
    return {
        identifier["value"]
        for plan in resources("InsurancePlan")
        if network in {n["reference"] for n in plan.get("network", [])}
        for identifier in plan.get("identifier", [])
    }


def _without_network(directory: Path, network: str) -> None:
    """The affiliations of the export in ``directory`` without ``network`` (no role names it)."""
    for path in directory.glob("*_OrganizationAffiliation.ndjson"):
        kept = []
        for line in path.read_text().splitlines():
            affiliation = json.loads(line)
            networks = [n for n in affiliation.get("network", []) if n["reference"] != network]
            kept.append(json.dumps({**affiliation, "network": networks}))
        path.write_text("\n".join(kept) + "\n")


async def _plans(es: AsyncElasticsearch, names: IndexNames) -> dict[str, dict[str, Any]]:
    """Every plan document (not the published resources beside them), as stored, by id."""
    index = names.alias("plans")
    await es.indices.refresh(index=index)
    query = {"query": {"bool": {"must_not": {"exists": {"field": "resourceType"}}}}}
    return {hit["_id"]: hit["_source"] async for hit in async_scan(es, index=index, query=query)}


@asynccontextmanager
async def _loaded(
    es: AsyncElasticsearch, sample_sources: SourceFiles, week1: Path
) -> AsyncIterator[IndexNames]:
    """The sample loaded with the export in ``week1`` as the payer's directory."""
    names = IndexNames(f"test-plan-stamps-{uuid.uuid4().hex[:8]}")
    sources = SourceFiles(**{**sample_sources.__dict__, "plan_net": week1, "plan_net_name": NAME})
    try:
        assert (await load(es, sources, LoadOptions(names=names))).accounted
        yield names
    finally:
        await es.indices.delete(index=f"{names.prefix}-*", ignore_unavailable=True)


@pytest.fixture
async def loaded(
    es: AsyncElasticsearch, sample_sources: SourceFiles, tmp_path: Path
) -> AsyncIterator[IndexNames]:
    async with _loaded(es, sample_sources, _plain(tmp_path / "week1")) as names:
        yield names


async def _update(es: AsyncElasticsearch, names: IndexNames, export: Path, tmp: Path) -> None:
    options = UpdateOptions(names=names, reject_file=tmp / f"rejects-{export.name}.csv")
    assert (await update_plan_net(es, export, options, NAME)).accounted


async def test_the_same_export_again_rewrites_no_plan(
    es: AsyncElasticsearch, loaded: IndexNames, tmp_path: Path
) -> None:
    before = await _plans(es, loaded)
    await _update(es, loaded, _plain(tmp_path / "again"), tmp_path)
    assert await _plans(es, loaded) == before  # stamps and flags alike


async def test_plans_whose_network_lost_its_members_are_unflagged_and_keep_their_stamp(
    es: AsyncElasticsearch, loaded: IndexNames, tmp_path: Path
) -> None:
    before = await _plans(es, loaded)
    by_payer_id = {doc["payerPlanId"]: doc_id for doc_id, doc in before.items()}
    emptied = {by_payer_id[plan_id] for plan_id in _using(EMPTIED)}
    assert len(emptied) == 3 and all(before[doc_id]["networkRows"] for doc_id in emptied)
    # Another source (an operator's coverage file) names one of them: that one stays flagged.
    kept = sorted(emptied)[0]
    plan = before[kept]
    row = {
        "contractYear": plan["contractYear"],
        "bidId": f"payer:{plan['payerPlanId']}",
        "npi": "1234567893",
        "locationId": None,
        "networkStatus": "in_network",
        "acceptingNewPatients": None,
        "effectiveDate": None,
        "terminationDate": None,
        "source": OTHER_SOURCE,
    }
    await es.index(index=loaded.alias("coverage"), id="other", document=row, refresh=True)
    week2 = _plain(tmp_path / "week2")
    _without_network(week2, EMPTIED)

    await _update(es, loaded, week2, tmp_path)

    after = await _plans(es, loaded)
    assert after.keys() == before.keys()
    for doc_id, doc in after.items():  # a flag at most: no plan served otherwise
        unflagged = doc_id in emptied and doc_id != kept
        assert doc == {**before[doc_id], **({"networkRows": False} if unflagged else {})}, doc_id


def _first_row(path: Path) -> dict[str, str]:
    with open(path, encoding="utf-8", newline="") as handle:
        return next(csv.DictReader(handle))


def _with_bid_id(directory: Path, bid_id: str) -> str:
    """The export's first plan with a CMS bid id given ``bid_id`` instead; returns its name."""
    for path in directory.glob("*_InsurancePlan.ndjson"):
        lines = path.read_text().splitlines()
        for n, line in enumerate(lines):
            plan = json.loads(line)
            cms = [i for i in plan.get("identifier", []) if "-" in str(i.get("value"))]
            if cms:
                cms[0]["value"] = bid_id
                lines[n] = json.dumps(plan)
                path.write_text("\n".join(lines) + "\n")
                return str(plan["name"])
    raise AssertionError("no plan with a bid id")


async def test_a_plan_finder_plan_of_a_bid_id_the_directory_also_names_is_kept(
    es: AsyncElasticsearch, sample_sources: SourceFiles, tmp_path: Path
) -> None:
    assert sample_sources.plans is not None
    finder = _first_row(sample_sources.plans)  # the Plan Finder's first plan
    week1 = _plain(tmp_path / "week1")
    directory_name = _with_bid_id(week1, finder["bid_id"])
    async with _loaded(es, sample_sources, week1) as names:
        before = await _plans(es, names)
        [kept] = [i for i, d in before.items() if d["bidId"] == canonical_bid(finder["bid_id"])]
        assert before[kept]["planName"] == finder["plan_name"] != directory_name  # as loaded
        await _update(es, names, week1, tmp_path)
        after = await _plans(es, names)
        assert after[kept] == before[kept] and after == before


def _write_coverage(path: Path, rows: list[dict[str, str]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, [*rows[0]])
        writer.writeheader()
        writer.writerows(rows)
    return path


async def test_a_coverage_update_that_flags_a_plan_keeps_its_stamp(
    es: AsyncElasticsearch, sample_copy: shared.SampleCopy, tmp_path: Path
) -> None:
    """A Plan Finder plan no coverage row of the sample names, then named by a new row: flagged
    as having a network; its InsurancePlan is what it was, so its stamp is too."""
    names = sample_copy.names
    named = {canonical_bid(r["bid_id"]) for r in coverage_rows(shared.SAMPLE_DIR)}
    before = await _plans(es, names)
    doc_id, plan = next(
        (i, p) for i, p in sorted(before.items()) if p["bidId"] and p["bidId"] not in named
    )
    assert plan["networkRows"] is False
    npi = active_rows(shared.SAMPLE_DIR / "npidata_pfile_sample.csv.gz")[0]["NPI"]
    row = {
        "contract_year": str(plan["contractYear"]),
        "bid_id": plan["bidId"],
        "npi": npi,
        "location_id": "",
        "network_status": "in_network",
        "accepting_new_patients": "Y",
        "effective_date": "",
        "termination_date": "",
        "source": "delta-test",
        "action": "",
    }
    delta = _write_coverage(tmp_path / "delta.csv", [row])
    options = UpdateOptions(names=names, reject_file=tmp_path / "rejects.csv")
    assert (await update_coverage(es, delta, options)).accounted
    after = await _plans(es, names)
    assert after[doc_id] == {**plan, "networkRows": True}
    assert {i: d for i, d in after.items() if i != doc_id} == {
        i: d for i, d in before.items() if i != doc_id
    }
