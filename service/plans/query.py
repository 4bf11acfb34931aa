"""A plan search -> the multi-search that reads its area's plans, the count of every plan
offered there, and the asked NPIs' lookup documents and coverage rows (pure): those two are the
network kit's searches (``service.network_kit.query``), as the coverage check sends them."""

from __future__ import annotations

from core.documents import Json
from core.index_contract import PLAN_FIELDS as F
from core.index_contract import STAR_FIELDS, IndexNames
from core.plan_offers import OFFER_FIELDS
from service.network_kit.query import Search, multi_search_body, providers_search, rows_search
from service.plans.models import PlanSearchRequest

MAX_AREA_PLANS = 2_000  # far above the plans offered in any county (Plan Finder: ~100)


def offered_here(request: PlanSearchRequest, year: int) -> list[Json]:
    """The plans of the year sold in the asked ZIP or county."""
    area = (
        {"term": {F.zips: request.zip}}
        if request.zip is not None
        else {"term": {F.countyFips: request.countyFips}}
    )
    return [{"term": {F.contractYear: year}}, area]


def asked_filters(request: PlanSearchRequest) -> tuple[list[Json], list[Json]]:
    """The request's filters: (filter, must_not) clauses."""
    kinds = [{"prefix": {F.contractId: kind}} for kind in request.kinds]
    filters: list[Json] = [{"bool": {"should": kinds, "minimum_should_match": 1}}]
    must_not: list[Json] = []
    if request.snp == "exclude":
        must_not.append({"term": {F.specialNeeds: True}})
    elif request.snp == "only":
        filters.append({"term": {F.specialNeeds: True}})
    if request.maxMonthlyPremium is not None:
        filters.append({"range": {F.monthlyPremium: {"lte": request.maxMonthlyPremium}}})
    if request.minStars is not None:
        filters.append({"range": {STAR_FIELDS.overall: {"gte": request.minStars}}})
    return filters, must_not


def plan_searches(
    request: PlanSearchRequest, year: int, names: IndexNames, header: Json
) -> list[Json]:
    """The area's plans that pass the filters, every plan offered there (a count), then the
    NPIs' lookup documents and their coverage rows of the year in any plan."""
    here = offered_here(request, year)
    filters, must_not = asked_filters(request)
    matching = {"bool": {"filter": here + filters, "must_not": must_not}}
    searches = [
        Search(names.alias("plans"), matching, MAX_AREA_PLANS, [*OFFER_FIELDS, F.networkRows]),
        Search(names.alias("plans"), {"bool": {"filter": here}}, 0),
    ]
    npis = [item.npi for item in request.npis]
    if npis:
        searches += [providers_search(names, npis), rows_search(names, year, npis, None)]
    return multi_search_body(searches, header)
