"""The facts one coverage request needs, read in one Elasticsearch round trip (``_msearch``)."""

from __future__ import annotations

from dataclasses import replace
from typing import cast

from elasticsearch import AsyncElasticsearch

from core.documents import CoverageDoc, Json, LookupDoc, Plan
from core.index_contract import IndexNames
from core.lookup_answers import stored_answer, stored_locations
from core.plans import plan_key
from service.coverage.evaluate import StoredFacts
from service.coverage.models import CoverageRequest
from service.coverage.query import coverage_searches, multi_search_body, network_searches
from service.errors import BackendUnavailable
from service.storage import WHOLE_ANSWERS_ONLY, multi_search

LOOKUP_INDICES = "the lookup indices"


def whole_hits(answer: Json) -> list[Json]:
    """Every hit of a search answer; a defect when the answer was larger than its window."""
    hits = answer["hits"]
    if hits["total"]["value"] > len(hits["hits"]):
        raise BackendUnavailable("coverage answer larger than the result window")
    return list(hits["hits"])


def networks(keys: list[str], answers: list[Json]) -> frozenset[str]:
    """The plan keys whose ``network_searches`` answer found a row."""
    return frozenset(
        key for key, answer in zip(keys, answers, strict=True) if answer["hits"]["total"]["value"]
    )


def stored_facts(
    plans: list[Plan],
    lookups: list[Json],
    coverage: list[Json],
    with_network: frozenset[str] = frozenset(),
) -> StoredFacts:
    """The facts from the hits of the plans, the lookup documents and the coverage rows."""
    answers = {hit["_id"]: cast(LookupDoc, hit["_source"]) for hit in lookups}  # by NPI
    return StoredFacts(
        plans={plan_key(p["bidId"], p["payerPlanId"]): p for p in plans},
        # The provider as stored, written into the answer as it is (never parsed here).
        providers={npi: stored_answer(doc["provider"]) for npi, doc in answers.items()},
        locations={npi: stored_locations(doc) for npi, doc in answers.items()},
        coverage=[cast(CoverageDoc, hit["_source"]) for hit in coverage],
        networks=with_network,
    )


async def read_facts(
    es: AsyncElasticsearch, names: IndexNames, request: CoverageRequest
) -> StoredFacts:
    searches = coverage_searches(request, names, WHOLE_ANSWERS_ONLY)
    plans, lookups, coverage = (
        whole_hits(answer) for answer in await multi_search(es, searches, LOOKUP_INDICES)
    )
    facts = stored_facts([cast(Plan, hit["_source"]) for hit in plans], lookups, coverage)
    unnamed = without_rows(list(facts.plans), facts)
    if not unnamed:
        return facts
    return replace(facts, networks=await read_networks(es, names, request.contractYear, unnamed))


def without_rows(keys: list[str], facts: StoredFacts) -> list[str]:
    """The plans among ``keys`` that no row read for the asked NPIs names: whether they have
    rows at all decides between out of network and unknown (``StoredFacts.networks``)."""
    named = {row["bidId"] for row in facts.coverage}
    return [key for key in keys if key not in named]


async def read_networks(
    es: AsyncElasticsearch, names: IndexNames, year: int, keys: list[str]
) -> frozenset[str]:
    """The plans among ``keys`` whose participation rows of the year name anyone (a second
    round trip, only for the plans the first one could not tell)."""
    if not keys:
        return frozenset()
    searches = multi_search_body(network_searches(names, year, keys), WHOLE_ANSWERS_ONLY)
    return networks(keys, await multi_search(es, searches, LOOKUP_INDICES))
