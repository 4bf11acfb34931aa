"""``provider-indexer update --plans FILE``: a newer Plan Finder plan file (with the plan-by-ZIP,
plan-by-county, star rating and plan page files beside it or named) applied to the live
version's plans in place.

Every plan of the files ends as one outcome: **added**, **changed** (its costs, rating, area or
names differ), **unchanged**; a Plan Finder plan of the same contract years that the files no
longer list is removed (counted in ``removed``). Rows the readers cannot use are rejected with
their reason, as a load rejects them. Plans a payer's Plan-Net directory names (``source:
plan-net:...``) are left as they are. The plans become visible in one refresh; run again after
a failure, it completes what is missing.
"""

from __future__ import annotations

from typing import Any

import orjson
from elasticsearch.helpers import async_scan

from core.change_log import Change
from core.change_records import plan_changes
from core.changes import CHANGED_AT, unstamped
from core.index_contract import COVERAGE_FIELDS, PLAN_FIELDS, PLAN_READ_SOURCE
from core.plan_offers import OfferedPlanDoc
from core.plan_resources import plans_removals
from core.plans import plan_doc_id_of
from indexer.assembly.plans import PLAN_FINDER, read_offered_plans
from indexer.change_diff import every_plan
from indexer.sources.discovery import PlanFiles
from indexer.update import indexed as current
from indexer.update.live_version import LiveVersion, visible_together
from indexer.update.options import UpdateOptions, update_session
from indexer.update.removals import record_removals
from indexer.update.report import UpdateReport
from indexer.write.bulk import Action, Origin, bulk_index, delete_action, index_action
from indexer.write.screen import Screen


async def _indexed_plans(es: Any, index: str, years: set[int]) -> dict[str, dict[str, Any]]:
    query = {
        "query": {
            "bool": {
                "filter": [
                    {"term": {PLAN_FIELDS.source: PLAN_FINDER}},
                    {"terms": {PLAN_FIELDS.contractYear: sorted(years)}},
                ]
            }
        },
        "_source": PLAN_READ_SOURCE,
    }
    return {hit["_id"]: hit["_source"] async for hit in async_scan(es, index=index, query=query)}


async def _has_rows(es: Any, live: LiveVersion, plan: OfferedPlanDoc) -> bool:
    """Whether any participation row of the plan's year names the plan (a plan new to the
    live version; one it had keeps its flag)."""
    rows = COVERAGE_FIELDS
    year = {"term": {rows.contractYear: plan["contractYear"]}}
    bid = {"term": {rows.bidId: plan["bidId"]}}
    found = await es.count(
        index=live.indices["coverage"], query={"bool": {"filter": [year, bid]}}, terminate_after=1
    )
    return bool(found["count"])


async def update_plans(es: Any, sources: PlanFiles, options: UpdateOptions) -> UpdateReport:
    """Apply newer Plan Finder files to the live version's plans; returns the report."""
    session = update_session(es, "plans", sources.plans, options)
    async with session as (live, report, rejects, errors, changes):
        index = live.indices["plans"]
        screen = Screen[OfferedPlanDoc](report, rejects, sources.plans.name)
        plans: list[OfferedPlanDoc] = read_offered_plans(sources, screen.reader_rejected)
        years = {plan["contractYear"] for plan in plans}
        indexed = await _indexed_plans(es, index, years) if years else {}
        every = await every_plan(es, index)
        after = dict(every)
        actions: list[Action] = []
        told: dict[str, list[Change]] = {}  # by plan year: what its write changes
        origin = Origin(sources.plans.name, 0, "")
        for plan in plans:
            report.rows_read += 1
            doc_id = plan_doc_id_of(plan)
            old = indexed.pop(doc_id, None)
            rows = old.get(PLAN_FIELDS.networkRows) if old else await _has_rows(es, live, plan)
            flagged = {**plan, PLAN_FIELDS.networkRows: bool(rows)}
            stored = {k: v for k, v in current.as_indexed(flagged).items() if k != PLAN_FIELDS.zips}
            if old is not None and unstamped(old) == stored:  # ZIPs are not stored: their digest is
                report.outcomes["unchanged"] += 1
                continue
            report.outcomes["added" if old is None else "changed"] += 1
            told[doc_id] = plan_changes(doc_id, old, stored, sources.plans.name)
            after[doc_id] = plan
            stamped = orjson.dumps({**flagged, CHANGED_AT: report.changed_at})
            actions.append(index_action(index, doc_id, stamped, origin))
        for doc_id, old in indexed.items():  # listed before, not any more (no row of the files)
            report.removed += 1
            told[doc_id] = plan_changes(doc_id, old, None, sources.plans.name)
            after.pop(doc_id)
            actions.append(delete_action(index, doc_id, origin))
        removals = live.indices["removals"]
        async with visible_together(es, [index, removals]):
            result = await bulk_index(es, actions)
            refused = {failure.doc_id for failure in result.failed}
            done = [change for i, told_of in told.items() if i not in refused for change in told_of]
            await changes.record(done, report.changed_at)
            # The FHIR resources built from the plans that went with them (a payer or a county
            # with its last plan), and those back again.
            gone, back = plans_removals(every.values(), after.values(), report.changed_at)
            report.removals += await record_removals(es, removals, gone, back)
        for failure in result.failed:
            errors.refused(origin, failure.reason)
    return report
