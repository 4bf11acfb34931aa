"""``update --plans``: newer Plan Finder files applied in place, each plan's outcome, and the
answers of the plan endpoints afterwards (expectations from the edited files)."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

from elasticsearch import AsyncElasticsearch

from indexer.sources.discovery import PlanFiles
from indexer.update.coverage import update_coverage
from indexer.update.options import UpdateOptions
from indexer.update.plans import update_plans
from tests.conftest import SAMPLE_DIR, SampleCopy, Serve, bearer, settings_for
from tests.service.plans import plan_files as sample_plans
from tests.source_rows import canonical_bid, coverage_rows

PLANS = "medicare_plan_finder_2026_plans.csv"
GEOGRAPHY = ("medicare_plan_finder_2026_zip_plan.csv", "medicare_plan_finder_2026_plan_county.csv")


def _edit(path: Path, keep: object, change: object = None) -> int:
    """Rewrite a CSV keeping the rows ``keep`` accepts, each passed through ``change``."""
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        fields, rows = reader.fieldnames or [], list(reader)
    kept = [change(r) if change else r for r in rows if keep(r)]  # type: ignore[operator]
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fields)
        writer.writeheader()
        writer.writerows(kept)
    return len(rows) - len(kept)


async def test_a_newer_plan_file_changes_and_removes_plans_in_place(
    serve: Serve, es: AsyncElasticsearch, es_url: str, sample_copy: SampleCopy, tmp_path: Path
) -> None:
    index_names = sample_copy.names
    newer = tmp_path / "newer"
    newer.mkdir()
    for path in SAMPLE_DIR.iterdir():
        if "plan_finder" in path.name or "star_ratings" in path.name:
            shutil.copy(path, newer / path.name)
    rows = list(csv.DictReader((newer / PLANS).read_text(encoding="utf-8").splitlines()))
    repriced, dropped = rows[0]["bid_id"], rows[1]["bid_id"]

    def new_price(row: dict[str, str]) -> dict[str, str]:
        return {**row, "total_monthly_premium": "$42.50"} if row["bid_id"] == repriced else row

    assert _edit(newer / PLANS, lambda r: r["bid_id"] != dropped, new_price) == 1
    for name in GEOGRAPHY:
        _edit(newer / name, lambda r: r["bid_id"] != dropped)

    options = UpdateOptions(names=index_names, reject_file=tmp_path / "rejects.csv")
    report = await update_plans(es, PlanFiles.beside(newer / PLANS), options)
    assert report.accounted and report.removed == 1
    assert report.outcomes["changed"] == 1 and report.outcomes["added"] == 0
    assert report.outcomes["unchanged"] == len(rows) - 2
    again = await update_plans(es, PlanFiles.beside(newer / PLANS), options)
    assert again.removed == 0 and set(again.outcomes) == {"unchanged"}

    settings = settings_for(es_url, index_names)
    api = await serve(settings)
    auth = bearer(settings)
    plan = await (await api.get(f"/v2/plans/{repriced}", headers=auth)).json()
    assert plan["monthlyPremium"] == 42.5
    assert (await api.get(f"/v2/plans/{dropped}", headers=auth)).status == 404


async def test_a_plans_first_rows_give_it_a_network(
    serve: Serve, es: AsyncElasticsearch, es_url: str, sample_copy: SampleCopy, tmp_path: Path
) -> None:
    """A plan no row names is unknown for everyone; once an update writes its first row, the
    provider it names is in network and everyone else out of network, as after a load."""
    index_names = sample_copy.names
    rows = coverage_rows(SAMPLE_DIR)
    with_rows = {canonical_bid(r["bid_id"]) for r in rows}
    bid = next(b for b in sample_plans.plans() if b not in with_rows)
    named = rows[0]["npi"]
    other = next(r["npi"] for r in rows if r["npi"] != named)
    settings = settings_for(es_url, index_names)
    api = await serve(settings)
    auth = bearer(settings)

    async def statuses() -> list[tuple[str, str | None]]:
        body = {"contractYear": 2026, "bidIds": [bid], "npis": [{"npi": named}, {"npi": other}]}
        response = await api.post("/v2/providers/coverage", json=body, headers=auth)
        [plan] = await response.json()
        return [(p["networkStatus"], p["reason"]) for p in plan["providers"]]

    assert await statuses() == [("unknown", "no_network_record")] * 2
    delta = tmp_path / "first_rows.csv"
    delta.write_text(
        "contract_year,bid_id,npi,location_id,network_status,accepting_new_patients,"
        f"effective_date,termination_date,source,action\n2026,{bid},{named},,in_network,Y,,,test,\n"
    )
    options = UpdateOptions(names=index_names, reject_file=tmp_path / "rejects.csv")
    report = await update_coverage(es, delta, options)
    assert report.outcomes["added"] == 1
    assert await statuses() == [("in_network", None), ("out_of_network", "no_participation_record")]
    # Newer plan files keep what the rows say (the plan is unchanged).
    again = await update_plans(es, PlanFiles.beside(SAMPLE_DIR / PLANS), options)
    assert set(again.outcomes) == {"unchanged"}
    assert await statuses() == [("in_network", None), ("out_of_network", "no_participation_record")]
