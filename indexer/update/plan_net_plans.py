"""``update --plan-net``'s plans: the directory's plans and the resources it publishes
(HealthcareServices, Endpoints) replaced in the plans index, each written only when what it
holds changed, so that an unchanged plan keeps its ``changedAt`` (core.changes) and an
incremental export does not give it again."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import orjson
from elasticsearch.helpers import async_scan

from core.changes import CHANGED_AT, removal, unstamped
from core.documents import Json, Plan
from core.index_contract import PLAN_FIELDS
from core.plan_resources import plans_removals
from core.plans import plan_doc_id_of, plan_key_of
from indexer.assembly import plan_net
from indexer.assembly.plan_net_published import published_documents
from indexer.change_diff import every_plan
from indexer.sources.plan_net import PlanNetDirectory
from indexer.update import indexed as current
from indexer.update.live_version import LiveVersion
from indexer.update.networks import PlanKey
from indexer.update.options import UpdateError
from indexer.update.removals import record_removals
from indexer.write.bulk import Action, Origin, bulk_index, delete_action, index_action


async def replace_plans(
    es: Any, live: LiveVersion, directory: PlanNetDirectory, at: str
) -> tuple[int, set[PlanKey]]:
    """The directory's plans and published resources replaced: those that differ written with
    ``at``, those it no longer publishes deleted (published ones recorded as removed); returns
    how many removal records it wrote, and the keys of its plans flagged as having a network
    (settled once its rows are: indexer.update.networks)."""
    index = live.indices["plans"]
    query = {"query": {"term": {PLAN_FIELDS.source: directory.source}}}
    before = {hit["_id"]: hit["_source"] async for hit in async_scan(es, index=index, query=query)}
    every = await every_plan(es, index)
    after = dict(every)  # the plans once written: what the plan-built resources are made of
    origin = Origin(directory.source, 0, "")
    written: list[str] = []
    flagged: set[PlanKey] = set()

    def actions() -> Iterator[Action]:
        """The plans and published resources one by one, then the deletes of what they left."""
        documents: Iterator[tuple[str, Any]] = itertools.chain(
            ((plan_doc_id_of(p), p) for p in plan_net.plan_documents(directory)),
            published_documents(directory),
        )
        for doc_id, document in documents:
            old, known = before.pop(doc_id, None), every.get(doc_id)
            if old is None and known is not None and known["source"] != directory.source:
                continue  # another source's record of a bid id wins, as in a load
            fresh = unstamped(current.as_indexed(document))
            if "resourceType" not in document:  # a plan: its flag kept until settled
                fresh[PLAN_FIELDS.networkRows] = bool(old and old.get(PLAN_FIELDS.networkRows))
                if fresh[PLAN_FIELDS.networkRows]:
                    flagged.add(_key(document))
            if old is not None and _compared(fresh) == _compared(unstamped(old)):
                continue
            written.append(doc_id)
            if "resourceType" not in document:
                after[doc_id] = document
            fresh[CHANGED_AT] = at
            yield index_action(index, doc_id, orjson.dumps(fresh), origin)
        yield from (delete_action(index, doc_id, origin) for doc_id in before)

    result = await bulk_index(es, actions())
    if result.failed:
        raise UpdateError(f"plans refused ({result.failed[0].reason}); run the update again")
    for doc_id in before:
        after.pop(doc_id, None)
    gone, back = plans_removals(every.values(), after.values(), at)
    removed = [
        removal(doc["resourceType"], doc["id"], at)
        for doc in before.values()
        if "resourceType" in doc
    ]
    records = [*removed, *gone]
    count = await record_removals(es, live.indices["removals"], records, [*written, *back])
    return count, flagged


def _compared(doc: Json) -> Json:
    """What tells a plan or a published resource changed: not its ZIPs (not in a stored plan's
    source, core.index_contract), nor its network flag (no part of what /fhir serves)."""
    return {k: v for k, v in doc.items() if k not in (PLAN_FIELDS.zips, PLAN_FIELDS.networkRows)}


def _key(plan: Plan) -> PlanKey:
    return plan["contractYear"], plan_key_of(plan)
