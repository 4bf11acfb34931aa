"""Who is in network, when (pure): the stored plans, providers, locations and coverage rows of
one request -> statuses grouped by bid id, then NPI, in request order (``plan_statuses``), and
the full answer with every provider and location written out under each plan (``evaluate``)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from typing import cast

from core.documents import CoverageDoc, Location, NetworkStatus, Plan, Provider
from core.network import AnsweredStatus, in_force
from service.coverage.models import (
    CoverageLocation,
    CoveragePlan,
    CoverageProvider,
    CoverageRequest,
    LocationStatus,
    NpiRequest,
    PlanStatuses,
    ProviderStatus,
    Reason,
    UnknownCoverageLocation,
)


@dataclass(frozen=True)
class StoredFacts:
    plans: dict[str, Plan]  # plan key (core.plans.plan_key) -> plan of the request's year
    providers: dict[str, Provider]  # npi -> provider
    locations: dict[str, list[Location]]  # npi -> its locations
    coverage: list[CoverageDoc]


def _status(rows: list[CoverageDoc]) -> NetworkStatus:
    in_network = any(r["networkStatus"] == "in_network" for r in rows)
    return "in_network" if in_network else "out_of_network"


def _location_status(location_id: str, known: bool, rows: list[CoverageDoc]) -> LocationStatus:
    if not known:
        return {
            "id": location_id,
            "networkStatus": "unknown",
            "reason": "location_not_found",
            "acceptingNewPatients": None,
            "effectiveDate": None,
            "terminationDate": None,
            "participationSource": None,
        }
    own = [r for r in rows if r["locationId"] in (None, location_id)]
    best = next((r for r in own if r["networkStatus"] == "in_network"), own[0] if own else None)
    return {
        "id": location_id,
        "networkStatus": _status(own),
        "reason": None if own else "no_participation_record",
        "acceptingNewPatients": best["acceptingNewPatients"] if best else None,
        "effectiveDate": best["effectiveDate"] if best else None,
        "terminationDate": best["terminationDate"] if best else None,
        "participationSource": best["source"] if best else None,
    }


def _provider_status(
    npi: str,
    wanted: list[str] | None,
    location_ids: list[str] | None,  # None: the provider is not in the directory
    rows: list[CoverageDoc],
    plan_known: bool,
) -> ProviderStatus:
    if not plan_known or location_ids is None:
        return {
            "npi": npi,
            "networkStatus": "unknown",
            "reason": "plan_not_found" if not plan_known else "provider_not_found",
            "locations": [],
        }
    ids = wanted if wanted is not None else location_ids
    known = set(location_ids)
    locations = [_location_status(i, i in known, rows) for i in ids]
    found = [loc for loc in locations if loc["networkStatus"] != "unknown"]
    status: AnsweredStatus
    reason: Reason | None
    if wanted is None:
        status, reason = _status(rows), (None if rows else "no_participation_record")
    elif not found:
        status, reason = "unknown", "location_not_found"
    else:
        in_network = any(loc["networkStatus"] == "in_network" for loc in found)
        status, reason = ("in_network" if in_network else "out_of_network"), None
    return {"npi": npi, "networkStatus": status, "reason": reason, "locations": locations}


def plan_statuses(request: CoverageRequest, facts: StoredFacts, today: date) -> list[PlanStatuses]:
    day = request.asOf or today
    rows_by_pair: dict[tuple[str, str], list[CoverageDoc]] = defaultdict(list)
    for row in facts.coverage:
        if row["contractYear"] == request.contractYear and in_force(row, day):
            rows_by_pair[(row["bidId"], row["npi"])].append(row)
    location_ids = {
        npi: [loc["id"] for loc in facts.locations.get(npi, [])] for npi in facts.providers
    }
    # Most (plan, provider) pairs of a request have no row: such a provider's status is the same
    # in every known plan, so it is built once per requested provider and shared (never mutated).
    without_rows = [
        _provider_status(item.npi, item.locationIds, location_ids.get(item.npi), [], True)
        for item in request.npis
    ]

    def status(key: str, index: int, item: NpiRequest) -> ProviderStatus:
        rows = rows_by_pair.get((key, item.npi))
        if rows is None and key in facts.plans:
            return without_rows[index]
        return _provider_status(
            item.npi, item.locationIds, location_ids.get(item.npi), rows or [], key in facts.plans
        )

    return [
        {
            "contractYear": request.contractYear,
            "bidId": bid,
            "payerPlanId": payer_plan_id,
            "asOf": day.isoformat(),
            "plan": facts.plans.get(key),
            "providers": [status(key, i, item) for i, item in enumerate(request.npis)],
        }
        for key, bid, payer_plan_id in request.plans
    ]


def _written_out(
    status: LocationStatus, by_id: dict[str, Location]
) -> CoverageLocation | UnknownCoverageLocation:
    location = by_id.get(status["id"])
    if location is None:  # the same fields exactly
        return cast(UnknownCoverageLocation, status)
    return cast(CoverageLocation, {**location, **status})


def evaluate(request: CoverageRequest, facts: StoredFacts, today: date) -> list[CoveragePlan]:
    """The full view: under every plan, each provider and location written out whole."""
    by_npi = {npi: {loc["id"]: loc for loc in locs} for npi, locs in facts.locations.items()}
    answer: list[CoveragePlan] = []
    for plan in plan_statuses(request, facts, today):
        providers: list[CoverageProvider] = []
        for entry in plan["providers"]:
            by_id = by_npi.get(entry["npi"], {})
            providers.append(
                {
                    "npi": entry["npi"],
                    "provider": facts.providers.get(entry["npi"]),
                    "networkStatus": entry["networkStatus"],
                    "reason": entry["reason"],
                    "locations": [_written_out(loc, by_id) for loc in entry["locations"]],
                }
            )
        answer.append({**plan, "providers": providers})
    return answer
