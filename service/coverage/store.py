"""The facts one coverage request needs, read in one Elasticsearch round trip (``_msearch``)."""

from __future__ import annotations

from typing import Any, cast

from elasticsearch import AsyncElasticsearch

from core.documents import CoverageDoc, Location, Plan, Provider
from core.index_contract import IndexNames
from service.coverage.evaluate import StoredFacts
from service.coverage.models import CoverageRequest
from service.errors import BackendUnavailable, IndexNotLoaded
from service.storage import WHOLE_ANSWERS_ONLY, elasticsearch_errors

MAX_ROWS = 10_000  # Elasticsearch's result window; the request limits keep answers below it


def coverage_searches(request: CoverageRequest, names: IndexNames) -> list[dict[str, Any]]:
    """Header/body pairs of the multi-search (pure)."""
    npis = [item.npi for item in request.npis]
    year = {"term": {"contractYear": request.contractYear}}
    searches = [
        (
            names.alias("plans"),
            {"bool": {"filter": [year, {"terms": {"bidId": request.bidIds}}]}},
            len(request.bidIds),
        ),
        (names.alias("providers"), {"ids": {"values": npis}}, len(npis)),
        (
            names.alias("coverage"),
            {
                "bool": {
                    "filter": [year, {"terms": {"bidId": request.bidIds}}, {"terms": {"npi": npis}}]
                }
            },
            MAX_ROWS,
        ),
    ]
    body: list[dict[str, Any]] = []
    for index, query, size in searches:
        body.append({"index": index, **WHOLE_ANSWERS_ONLY})
        body.append({"query": query, "size": size, "track_total_hits": True})
    return body


def _sources(response: dict[str, Any]) -> list[dict[str, Any]]:
    if "error" in response:
        if response["error"].get("type") == "index_not_found_exception":
            raise IndexNotLoaded("a lookup index is not loaded")
        raise BackendUnavailable("a lookup search failed")
    hits = response["hits"]
    if hits["total"]["value"] > len(hits["hits"]):
        raise BackendUnavailable("coverage answer larger than the result window")
    return [hit["_source"] for hit in hits["hits"]]


async def read_facts(
    es: AsyncElasticsearch, names: IndexNames, request: CoverageRequest
) -> StoredFacts:
    with elasticsearch_errors("the lookup indices"):
        result = await es.msearch(searches=coverage_searches(request, names))
    plans, lookups, coverage = (_sources(r) for r in result["responses"])
    providers = [cast(Provider, doc["provider"]) for doc in lookups]
    return StoredFacts(
        plans={p["bidId"]: cast(Plan, p) for p in plans},
        providers={p["npis"][0]: p for p in providers},
        locations={
            doc["provider"]["npis"][0]: cast(list[Location], doc["locations"]) for doc in lookups
        },
        coverage=[cast(CoverageDoc, row) for row in coverage],
    )
