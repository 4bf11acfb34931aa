"""The facts one coverage request needs, read in one Elasticsearch round trip (``_msearch``)."""

from __future__ import annotations

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from service.coverage.models import CoverageRequest
from service.coverage.query import coverage_searches
from service.network_kit.evaluate import StoredFacts
from service.network_kit.store import stored_facts, whole_hits
from service.storage import WHOLE_ANSWERS_ONLY, multi_search

LOOKUP_INDICES = "the lookup indices"


async def read_facts(
    es: AsyncElasticsearch, names: IndexNames, request: CoverageRequest
) -> StoredFacts:
    searches = coverage_searches(request, names, WHOLE_ANSWERS_ONLY)
    plans, lookups, coverage = (
        whole_hits(answer) for answer in await multi_search(es, searches, LOOKUP_INDICES)
    )
    return stored_facts(plans, lookups, coverage)[1]
