"""The plans index read for an area (one ``_msearch`` with the NPIs' providers and rows) and
for one plan by bid id."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from elasticsearch import AsyncElasticsearch, NotFoundError

from core.documents import Json
from core.index_contract import PLAN_FIELDS, IndexNames
from core.plan_offers import OFFER_FIELDS, OfferedPlan
from core.plans import plan_doc_id
from service.network_kit.evaluate import StoredFacts
from service.network_kit.store import stored_facts, whole_hits
from service.storage import document_missing, elasticsearch_errors, multi_search

PLANS_INDEX = "the plans index"


@dataclass(frozen=True)
class AreaFacts:
    offers: list[OfferedPlan]  # the plans that pass the filters
    offered: int  # every plan of the year offered in the area
    facts: StoredFacts


async def read_area(es: AsyncElasticsearch, searches: list[Json]) -> AreaFacts:
    answers = await multi_search(es, searches, PLANS_INDEX)
    plan_hits = whole_hits(answers[0])
    offered = int(answers[1]["hits"]["total"]["value"])
    lookups, rows = (whole_hits(a) for a in answers[2:]) if len(answers) > 2 else ([], [])
    plans, facts = stored_facts(plan_hits, list(lookups), list(rows))
    return AreaFacts(cast(list[OfferedPlan], plans), offered, facts)


async def read_plan(
    es: AsyncElasticsearch, names: IndexNames, year: int, bid_id: str
) -> Json | None:
    """The stored plan of that year (its offer facts and service area), or None."""
    with elasticsearch_errors(PLANS_INDEX):
        try:
            source = await es.get_source(
                index=names.alias("plans"),
                id=plan_doc_id(year, bid_id),
                source_includes=[*OFFER_FIELDS, PLAN_FIELDS.serviceArea],
                realtime=False,
            )
        except NotFoundError as error:
            if not document_missing(error):
                raise
            return None
    return cast(Json, source.body)
