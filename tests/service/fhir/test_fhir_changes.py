"""``meta.lastUpdated`` and ``_lastUpdated`` across an NPPES update (core.changes): what the
update's file adds or changes is found after the load's instant and dated by the update, the
rest keeps the load's. Expected sets come from the file the test generates."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path
from typing import Any

from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_scan

import tests.conftest as shared
from core.index_contract import IndexNames, version_started
from indexer.generate.weekly import UpdateCounts, generate_update
from indexer.load.run import SourceFiles
from indexer.sources.discovery import PlanFiles
from indexer.update.nppes import update_nppes
from indexer.update.options import UpdateOptions
from indexer.update.plans import update_plans
from tests.indexer.test_update_plans import GEOGRAPHY, PLANS, _edit
from tests.service.fhir import fhir_rows as F
from tests.source_rows import canonical_bid, nppes_rows

WEEK = UpdateCounts(new=10, changed=30, deactivated=8, reactivated=3, stale=3, invalid=1)
_KIND = {"1": "Practitioner", "2": "Organization"}


async def test_last_updated_finds_exactly_what_an_update_changed(
    es: AsyncElasticsearch,
    es_url: str,
    serve: shared.Serve,
    sample_sources: SourceFiles,
    sample_copy: shared.SampleCopy,
    tmp_path: Path,
) -> None:
    week = generate_update(sample_sources.nppes_file, tmp_path / "week.csv", WEEK, seed=5)
    names = sample_copy.names
    loaded = version_started(sample_copy.report.version).strftime("%Y-%m-%dT%H:%M:%SZ")
    report = await update_nppes(
        es, week.out, UpdateOptions(names=names, reject_file=tmp_path / "r.csv")
    )
    api = await serve(shared.settings_for(es_url, names))

    entity = {row["NPI"]: row["Entity Type Code"] for row in nppes_rows(week.out)}
    touched = {*week.npis.new, *week.npis.reactivated, *week.npis.changed}
    for code, kind in _KIND.items():
        expected = {npi for npi in touched if entity[npi] == code}
        pages = await F.walk(api, kind, [("_lastUpdated", f"gt{loaded}")])
        changed = F.entries(pages)
        assert expected and sorted(r["id"] for r in changed) == sorted(expected), kind
        assert {r["meta"]["lastUpdated"] for r in changed} == {report.changed_at}
        exact = await F.found_ids(api, kind, [("_lastUpdated", report.changed_at)])
        assert sorted(exact) == sorted(expected)
        rest = await F.fetch(api, f"/fhir/{kind}", [("_lastUpdated", f"le{loaded}")])
        assert {e["resource"]["meta"]["lastUpdated"] for e in rest["entry"]} == {loaded}


def _plan_id(bid: str) -> str:
    """An InsurancePlan's id: the plan year and its bid id, FHIR-safe (``2026-H1234-001-000``)."""
    return f"2026-{canonical_bid(bid)}".replace("_", "-")


async def test_a_plans_update_dates_what_it_changed_and_records_what_it_removed(
    es: AsyncElasticsearch, es_url: str, serve: shared.Serve, sample_copy: shared.SampleCopy,
    tmp_path: Path,
) -> None:  # fmt: skip
    newer = tmp_path / "newer"
    newer.mkdir()
    for path in shared.SAMPLE_DIR.iterdir():
        if "plan_finder" in path.name or "star_ratings" in path.name:
            shutil.copy(path, newer / path.name)
    rows = list(csv.DictReader((newer / PLANS).read_text(encoding="utf-8").splitlines()))
    repriced, dropped = rows[0], rows[1]

    def new_price(row: dict[str, str]) -> dict[str, str]:
        same = row["bid_id"] == repriced["bid_id"]
        return {**row, "total_monthly_premium": "$42.50"} if same else row

    _edit(newer / PLANS, lambda r: r["bid_id"] != dropped["bid_id"], new_price)
    for name in GEOGRAPHY:
        _edit(newer / name, lambda r: r["bid_id"] != dropped["bid_id"])
    names = sample_copy.names
    loaded = version_started(sample_copy.report.version).strftime("%Y-%m-%dT%H:%M:%SZ")
    options = UpdateOptions(names=names, reject_file=tmp_path / "rejects.csv")
    report = await update_plans(es, PlanFiles.beside(newer / PLANS), options)
    api = await serve(shared.settings_for(es_url, names))

    after = [("_lastUpdated", f"gt{loaded}")]
    changed = F.entries(await F.walk(api, "InsurancePlan", after))
    assert [r["id"] for r in changed] == [_plan_id(repriced["bid_id"])]
    assert changed[0]["meta"]["lastUpdated"] == report.changed_at
    organizations = await F.found_ids(api, "Organization", after)
    network = f"network-{_plan_id(repriced['bid_id'])}"
    assert sorted(organizations) == sorted([network, f"payer-{repriced['contract_id']}"])

    removals = await _sources(es, names)
    expected = {
        f"InsurancePlan/{_plan_id(dropped['bid_id'])}",
        f"Organization/network-{_plan_id(dropped['bid_id'])}",
    }
    if not any(r["contract_id"] == dropped["contract_id"] for r in rows if r is not dropped):
        expected.add(f"Organization/payer-{dropped['contract_id']}")
    assert {key for key in removals if not key.startswith("Location/")} == expected
    assert {r["removedAt"] for r in removals.values()} == {report.changed_at}
    for key in removals:  # a county goes with the last plan sold there
        assert (await api.get(f"/fhir/{key}")).status == 404


async def _sources(es: AsyncElasticsearch, names: IndexNames) -> dict[str, Any]:
    await es.indices.refresh(index=names.alias("removals"))
    found = async_scan(es, index=names.alias("removals"), query={"query": {"match_all": {}}})
    return {hit["_id"]: hit["_source"] async for hit in found}
