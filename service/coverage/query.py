"""The searches that read a coverage question's stored facts (pure): its plans, the lookup
documents of its NPIs and their coverage rows (the network kit's searches,
``service.network_kit.query``), as one multi-search body."""

from __future__ import annotations

from core.documents import Json
from core.index_contract import PLAN_FIELDS, IndexNames
from core.plan_offers import PLAN_SOURCE_FIELDS
from core.plans import plan_doc_id
from service.coverage.models import CoverageRequest
from service.network_kit.query import Search, multi_search_body, providers_search, rows_search


def coverage_searches(request: CoverageRequest, names: IndexNames, header: Json) -> list[Json]:
    """The plans, the lookup documents of the NPIs and their coverage rows."""
    npis = [item.npi for item in request.npis]
    keys = [key for key, _, _ in request.plans]
    plan_ids = [plan_doc_id(request.contractYear, key) for key in keys]
    source = [*PLAN_SOURCE_FIELDS, PLAN_FIELDS.networkRows]
    plans = Search(names.alias("plans"), {"ids": {"values": plan_ids}}, len(keys), source)
    return multi_search_body(
        [
            plans,
            providers_search(names, npis),
            rows_search(names, request.contractYear, npis, keys),
        ],
        header,
    )
