"""The steps of a plan search: the cursor, the area, the multi-search, the statuses and order,
the page."""

from __future__ import annotations

from datetime import date

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from service.errors import AreaNotFound
from service.plans.area import resolve_area
from service.plans.cursor import decode_cursor, encode_cursor
from service.plans.models import NoPlanResults, PlanSearchRequest, PlanSearchResponse
from service.plans.query import plan_searches
from service.plans.rank import in_order, with_statuses
from service.plans.store import read_area
from service.storage import WHOLE_ANSWERS_ONLY


def _no_results(offered: int, year: int) -> NoPlanResults:
    if offered == 0:
        return {"code": "no_plan_offered", "detail": f"no plan of {year} is offered in this area"}
    return {
        "code": "no_plan_matches",
        "detail": f"{offered} plans of {year} are offered here; none passes the filters"
        " (planTypes, snp, maxMonthlyPremium, minStars)",
    }


async def search_plans(
    es: AsyncElasticsearch, names: IndexNames, asked: PlanSearchRequest, *, today: date
) -> PlanSearchResponse:
    request, offset = decode_cursor(asked)
    area, known = resolve_area(request)
    year = request.contractYear or today.year
    found = await read_area(es, plan_searches(request, year, names, WHOLE_ANSWERS_ONLY))
    if not known and found.offered == 0:
        raise AreaNotFound("zip", request.zip or "")
    plans = in_order(request, with_statuses(request, found.offers, found.facts, year, today))
    end = offset + request.pageSize
    return {
        "area": area,
        "contractYear": year,
        "asOf": today.isoformat(),
        "totalCount": len(plans),
        "pageSize": request.pageSize,
        "results": plans[offset:end],
        "nextCursor": encode_cursor(request, end) if end < len(plans) else None,
        "noResults": _no_results(found.offered, year) if not plans else None,
    }
