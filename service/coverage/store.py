"""The facts one coverage request needs, read in one Elasticsearch round trip (``_msearch``)."""

from __future__ import annotations

from typing import cast

from elasticsearch import AsyncElasticsearch

from core.documents import CoverageDoc, Json, LookupDoc, Plan
from core.index_contract import IndexNames
from core.lookup_answers import stored_locations, stored_provider
from core.plans import plan_key
from service.coverage.evaluate import StoredFacts
from service.coverage.models import CoverageRequest
from service.coverage.query import coverage_searches
from service.errors import BackendUnavailable
from service.storage import WHOLE_ANSWERS_ONLY, elasticsearch_errors, item_answers

LOOKUP_INDICES = "the lookup indices"


def _sources(answer: Json) -> list[Json]:
    hits = answer["hits"]
    if hits["total"]["value"] > len(hits["hits"]):
        raise BackendUnavailable("coverage answer larger than the result window")
    return [hit["_source"] for hit in hits["hits"]]


async def read_facts(
    es: AsyncElasticsearch, names: IndexNames, request: CoverageRequest
) -> StoredFacts:
    with elasticsearch_errors(LOOKUP_INDICES):
        result = await es.msearch(searches=coverage_searches(request, names, WHOLE_ANSWERS_ONLY))
    plans, lookups, coverage = (_sources(a) for a in item_answers(result.body, LOOKUP_INDICES))
    providers = [stored_provider(cast(LookupDoc, doc)) for doc in lookups]
    return StoredFacts(
        plans={plan_key(p["bidId"], p["payerPlanId"]): cast(Plan, p) for p in plans},
        providers={p["npis"][0]: p for p in providers},
        locations={
            p["npis"][0]: stored_locations(cast(LookupDoc, doc))
            for p, doc in zip(providers, lookups, strict=True)
        },
        coverage=[cast(CoverageDoc, row) for row in coverage],
    )
