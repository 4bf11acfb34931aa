"""Coverage request -> the multi-search that reads its plans, providers and rows (pure)."""

from __future__ import annotations

from core.documents import Json
from core.index_contract import IndexNames, plan_doc_id
from service.coverage.models import CoverageRequest

LOOKUP_ANSWERS = ["provider", "locations"]
MAX_ROWS = 10_000  # Elasticsearch's result window; the request limits keep answers below it


def coverage_searches(request: CoverageRequest, names: IndexNames, header: Json) -> list[Json]:
    """Header/body pairs of the multi-search: the plans, the lookup documents of the NPIs and
    their coverage rows; ``header`` goes on every header line."""
    npis = [item.npi for item in request.npis]
    year = {"term": {"contractYear": request.contractYear}}
    keys = [key for key, _, _ in request.plans]
    bids = {"terms": {"bidId": keys}}  # coverage rows key their plan by core.plans.plan_key
    plan_ids = [plan_doc_id(request.contractYear, key) for key in keys]
    searches = [
        (names.alias("plans"), {"ids": {"values": plan_ids}}, len(keys)),
        (names.alias("providers"), {"ids": {"values": npis}}, len(npis)),
        (
            names.alias("coverage"),
            {"bool": {"filter": [year, bids, {"terms": {"npi": npis}}]}},
            MAX_ROWS,
        ),
    ]
    body: list[Json] = []
    for index, query, size in searches:
        body.append({"index": index, **header})
        body.append({"query": query, "size": size, "track_total_hits": True})
    body[3]["_source"] = LOOKUP_ANSWERS  # not what the updates keep beside them
    return body
