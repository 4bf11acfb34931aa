"""The steps of one coverage question: read the stored facts, then evaluate them for the day."""

from __future__ import annotations

from datetime import date

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from service.coverage.compact import compact
from service.coverage.evaluate import evaluate, plan_statuses
from service.coverage.models import CompactCoverage, CoveragePlan, CoverageRequest
from service.coverage.store import read_facts


async def check_coverage(
    es: AsyncElasticsearch, names: IndexNames, request: CoverageRequest, *, today: date
) -> CompactCoverage | list[CoveragePlan]:
    facts = await read_facts(es, names, request)
    if request.view == "compact":
        return compact(plan_statuses(request, facts, today), facts)
    return evaluate(request, facts, today)
