"""The searches both the coverage check and the plan search send (pure): the lookup documents
of the asked NPIs and their coverage rows, and the multi-search body that carries them with
each feature's own plan searches."""

from __future__ import annotations

from typing import NamedTuple

from core.documents import Json
from core.index_contract import COVERAGE_FIELDS as C
from core.index_contract import IndexNames
from service.search_kit.limits import MAX_WINDOW

LOOKUP_ANSWERS = ["provider", "locations"]  # not what the updates keep beside them


class Search(NamedTuple):
    target: str  # an alias
    query: Json
    size: int
    source: list[str] | Json | None = None


def providers_search(names: IndexNames, npis: list[str]) -> Search:
    return Search(names.alias("providers"), {"ids": {"values": npis}}, len(npis), LOOKUP_ANSWERS)


def rows_search(names: IndexNames, year: int, npis: list[str], keys: list[str] | None) -> Search:
    """The coverage rows of these NPIs in a plan year: of these plans (``core.plans.plan_key``),
    or of every plan when ``keys`` is None; the whole result window (the request limits keep
    answers below it)."""
    filters: list[Json] = [{"term": {C.contractYear: year}}, {"terms": {C.npi: npis}}]
    if keys is not None:
        filters.append({"terms": {C.bidId: keys}})  # rows key their plan by plan_key
    return Search(names.alias("coverage"), {"bool": {"filter": filters}}, MAX_WINDOW)


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
