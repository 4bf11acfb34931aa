"""Plans' network flag (``networkRows``: some participation row names the
plan), set by an update as a load sets it.

The flag is no part of any FHIR resource (an InsurancePlan and its network are built alike
either way), so setting it leaves a plan's ``changedAt`` as it was: an incremental export
(``_since``) gets a plan when what it serves changed, not when the flag did."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from core.index_contract import COVERAGE_FIELDS as C
from core.index_contract import PLAN_FIELDS
from core.plans import plan_doc_id
from indexer.update import indexed as current
from indexer.update.options import UpdateError
from indexer.write.bulk import Action, Origin, action_lines, bulk_index, chunked

PlanKey = tuple[int, str]  # (contract year, plan key): what a coverage row names a plan by


async def flag_networks(es: Any, index: str, plans: Iterable[PlanKey], source: str) -> None:
    """Flag the plans of these keys that exist and are not flagged yet."""
    ids = sorted({plan_doc_id(year, key) for year, key in plans})
    for batch in chunked(ids, 1000):
        found = await current.documents(es, index, batch, [PLAN_FIELDS.networkRows])
        unflagged = [
            doc_id for doc_id, doc in found.items() if not doc.get(PLAN_FIELDS.networkRows)
        ]
        await _set(es, index, unflagged, source, flagged=True)


async def unflag_networks(
    es: Any, plans: str, coverage: str, keys: Iterable[PlanKey], source: str
) -> None:
    """Unflag the plans of these keys that ``source`` no longer has rows of, unless another
    source's rows name them (read as last refreshed: an update writes its own source's rows
    only, so other sources' are as they were)."""
    gone: list[str] = []
    for year, key in sorted(set(keys)):
        named = {"bool": {"filter": [{"term": {C.contractYear: year}}, {"term": {C.bidId: key}}]}}
        query = {"bool": {"filter": [named], "must_not": [{"term": {C.source: source}}]}}
        found = await es.count(index=coverage, query=query, terminate_after=1)
        if not found["count"]:
            gone.append(plan_doc_id(year, key))
    for batch in chunked(gone, 1000):
        await _set(es, plans, batch, source, flagged=False)


async def _set(es: Any, index: str, ids: list[str], source: str, flagged: bool) -> None:
    body = orjson.dumps({"doc": {PLAN_FIELDS.networkRows: flagged}})
    origin = Origin(source, 0, "")
    actions: list[Action] = [(action_lines("update", index)(i), body, origin) for i in ids]
    result = await bulk_index(es, actions)
    if result.failed:
        raise UpdateError(
            f"rows written, but {len(result.failed)} plans' network flags not set"
            f" ({result.failed[0].reason}); run the update again"
        )
