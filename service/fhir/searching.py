"""The steps of a FHIR search, in order: read the page's cursor, resolve what names plans and
networks, query, build the resources of the hits and what they bring along, and say where the
next page starts.

Practitioner and provider Organizations are one resource per provider: a page is a page of
hits. A Location search matches the locations of a hit one by one, a PractitionerRole search
gives a role per network of a hit (their pages are in ``service.fhir.sources.expanded``).
InsurancePlans, payers, networks and the counties plans are sold in are built from the few
plans and searched in memory; an Organization search gives providers first, then payers and
networks, a Location search practice sites first, then counties
(``service.fhir.sources.locations``).
``_text`` asks the /v2 search (service.search), which reads free text as people write it.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from service.fhir.models import Search
from service.fhir.render.bundle import Page, searchset
from service.fhir.resource_types import SERVED, ServedType
from service.fhir.search.query import NETWORK_PARAMETER
from service.fhir.sources.memory import network_keys
from service.fhir.sources.source import Reading
from service.fhir.sources.text import text_page


def _needs_plans(search: Search, served: ServedType) -> bool:
    return (
        served.reads_plans
        or any(c.name.startswith(NETWORK_PARAMETER) for c in search.clauses)
        or any(name.endswith(":network") for name in search.includes)
    )


async def search_page(
    es: AsyncElasticsearch, names: IndexNames, search: Search, today: date
) -> Page:
    served = SERVED[search.kind]
    reading = Reading(es, names, today)
    if _needs_plans(search, served):
        plans = await reading.plans()
        if served.network_members:
            search = replace(search, network_keys=network_keys(search, plans))
    if search.text is not None and served.by_text is not None:
        return await text_page(reading, search, served.by_text)
    return await served.source.page(reading, search)


async def search_bundle(
    es: AsyncElasticsearch, names: IndexNames, search: Search, today: date, base: str
) -> bytes:
    """The searchset Bundle of a search's page (``base``: the FHIR API's absolute root)."""
    return searchset(base, search, await search_page(es, names, search, today))
