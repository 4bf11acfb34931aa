"""The FHIR API's reads: the search alias (searches, and reads by NPI or location id: a read
builds its resource from the same document a search does) and the plans alias."""

from __future__ import annotations

from elasticsearch import AsyncElasticsearch

from core.changes import CHANGED_AT
from core.documents import Json
from core.index_contract import PLAN_FIELDS, PLAN_READ_SOURCE, IndexNames
from service.fhir.render.plans import PlanRecord
from service.fhir.search.published_query import PUBLISHED_SOURCE
from service.search_kit.limits import MAX_WINDOW, RESOURCE_SOURCE
from service.search_kit.store import documents
from service.storage import elasticsearch_errors, search_whole

MAX_PLANS = MAX_WINDOW  # far above the plans of any directory


# Every plan: the plans index holds hundreds of plans, not millions.
EVERY_PLAN: Json = {
    "size": MAX_PLANS,
    "_source": PLAN_READ_SOURCE,
    "query": {"bool": {"must_not": {"exists": {"field": PLAN_FIELDS.resourceType}}}},
    "sort": ["_doc"],
}


def plan_records(response: Json) -> list[PlanRecord]:
    """The plans of an EVERY_PLAN answer."""
    return [PlanRecord(h["_source"], h["_source"][CHANGED_AT]) for h in response["hits"]["hits"]]


async def plans(es: AsyncElasticsearch, names: IndexNames) -> list[PlanRecord]:
    return plan_records(await search_whole(es, names.alias("plans"), EVERY_PLAN, "the plans index"))


async def providers(es: AsyncElasticsearch, names: IndexNames, npis: list[str]) -> list[Json]:
    """The search documents of these NPIs as hits (provider, locations and in-network periods:
    a read, an include and a search build the same resource), in that order (those found)."""
    return await documents(es, names, npis, RESOURCE_SOURCE)


async def published(es: AsyncElasticsearch, names: IndexNames, body: Json) -> Json:
    """A search of what payers' directories publish (in the plans index)."""
    return await search_whole(es, names.alias("plans"), body, "the plans index")


async def published_documents(
    es: AsyncElasticsearch, names: IndexNames, ids: list[str]
) -> list[Json]:
    """Published resources by ``Type/id``, as hits, in that order (those found)."""
    if not ids:
        return []
    with elasticsearch_errors("the plans index"):
        response = await es.mget(
            index=names.alias("plans"), ids=ids, source_includes=PUBLISHED_SOURCE
        )
    return [
        {"_source": doc["_source"], "_index": doc["_index"]}
        for doc in response["docs"]
        if doc.get("found")
    ]
