"""The searches that read a coverage question's stored facts (pure): its plans, the lookup
documents of its NPIs and their coverage rows, as one multi-search body. The plan search of
an area (``service.plans``) reads its providers and rows with the same searches."""

from __future__ import annotations

from typing import NamedTuple

from core.documents import Json
from core.index_contract import IndexNames, plan_doc_id
from core.plan_offers import NETWORK_ROWS_FIELD, PLAN_FIELDS
from service.coverage.models import CoverageRequest

LOOKUP_ANSWERS = ["provider", "locations"]  # not what the updates keep beside them
MAX_ROWS = 10_000  # Elasticsearch's result window; the request limits keep answers below it


class Search(NamedTuple):
    target: str  # an alias
    query: Json
    size: int
    source: list[str] | Json | None = None


def providers_search(names: IndexNames, npis: list[str]) -> Search:
    return Search(names.alias("providers"), {"ids": {"values": npis}}, len(npis), LOOKUP_ANSWERS)


def rows_search(names: IndexNames, year: int, npis: list[str], keys: list[str] | None) -> Search:
    """The coverage rows of these NPIs in a plan year: of these plans (``core.plans.plan_key``),
    or of every plan when ``keys`` is None."""
    filters: list[Json] = [{"term": {"contractYear": year}}, {"terms": {"npi": npis}}]
    if keys is not None:
        filters.append({"terms": {"bidId": keys}})  # rows key their plan by plan_key
    return Search(names.alias("coverage"), {"bool": {"filter": filters}}, MAX_ROWS)


def multi_search_body(searches: list[Search], header: Json) -> list[Json]:
    """Header/body pairs; ``header`` goes on every header line."""
    body: list[Json] = []
    for search in searches:
        body.append({"index": search.target, **header})
        request: Json = {"query": search.query, "size": search.size, "track_total_hits": True}
        if search.source is not None:
            request["_source"] = search.source
        body.append(request)
    return body


def coverage_searches(request: CoverageRequest, names: IndexNames, header: Json) -> list[Json]:
    """The plans, the lookup documents of the NPIs and their coverage rows."""
    npis = [item.npi for item in request.npis]
    keys = [key for key, _, _ in request.plans]
    plan_ids = [plan_doc_id(request.contractYear, key) for key in keys]
    source = [*PLAN_FIELDS, NETWORK_ROWS_FIELD]
    plans = Search(names.alias("plans"), {"ids": {"values": plan_ids}}, len(keys), source)
    return multi_search_body(
        [
            plans,
            providers_search(names, npis),
            rows_search(names, request.contractYear, npis, keys),
        ],
        header,
    )
