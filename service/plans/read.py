"""The steps of a plan read: the stored plan of the year, completed where it has no Plan Finder
facts (a plan only a payer's directory names)."""

from __future__ import annotations

from datetime import date
from typing import cast

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from core.plan_offers import no_offer_facts
from service.errors import PlanNotFound
from service.plans.models import PlanDetail, PlanReadParams
from service.plans.store import read_plan


async def read_plan_detail(
    es: AsyncElasticsearch, names: IndexNames, params: PlanReadParams, *, today: date
) -> PlanDetail:
    year = params.contractYear or today.year
    stored = await read_plan(es, names, year, params.bidId)
    if stored is None:
        raise PlanNotFound(params.bidId, year)
    area = {"states": stored["states"], "counties": [], "zipCount": 0}
    return cast(PlanDetail, {**no_offer_facts(), "serviceArea": area, **stored})
