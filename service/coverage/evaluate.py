"""Who is in network, when (pure): the stored plans, providers, locations and coverage rows of
one request -> the response grouped by bid id, then NPI, in request order."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from typing import Literal

from core.documents import CoverageDoc, Location, NetworkStatus, Plan, Provider
from service.coverage.models import (
    CoverageLocation,
    CoveragePlan,
    CoverageProvider,
    CoverageRequest,
    Reason,
    UnknownCoverageLocation,
)


@dataclass(frozen=True)
class StoredFacts:
    plans: dict[str, Plan]  # bid id -> plan (of the request's contract year)
    providers: dict[str, Provider]  # npi -> provider
    locations: dict[str, list[Location]]  # npi -> its locations
    coverage: list[CoverageDoc]


def effective_on(row: CoverageDoc, day: date) -> bool:
    """Effective date inclusive, termination date exclusive; open ends always match."""
    starts, ends = row["effectiveDate"], row["terminationDate"]
    return (starts is None or date.fromisoformat(starts) <= day) and (
        ends is None or day < date.fromisoformat(ends)
    )


def _status(rows: list[CoverageDoc]) -> NetworkStatus:
    in_network = any(r["networkStatus"] == "in_network" for r in rows)
    return "in_network" if in_network else "out_of_network"


def _location_entry(
    location: Location | None, location_id: str, rows: list[CoverageDoc]
) -> CoverageLocation | UnknownCoverageLocation:
    if location is None:
        return {
            "id": location_id,
            "networkStatus": "unknown",
            "reason": "location_not_found",
            "acceptingNewPatients": None,
            "effectiveDate": None,
            "terminationDate": None,
        }
    own = [r for r in rows if r["locationId"] in (None, location["id"])]
    best = next((r for r in own if r["networkStatus"] == "in_network"), own[0] if own else None)
    return {
        **location,
        "networkStatus": _status(own),
        "reason": None if own else "no_participation_record",
        "acceptingNewPatients": best["acceptingNewPatients"] if best else None,
        "effectiveDate": best["effectiveDate"] if best else None,
        "terminationDate": best["terminationDate"] if best else None,
    }


def _provider_entry(
    npi: str,
    wanted: list[str] | None,
    facts: StoredFacts,
    rows: list[CoverageDoc],
    plan_known: bool,
) -> CoverageProvider:
    provider = facts.providers.get(npi)
    if not plan_known or provider is None:
        return {
            "npi": npi,
            "provider": provider,
            "networkStatus": "unknown",
            "reason": "plan_not_found" if not plan_known else "provider_not_found",
            "locations": [],
        }
    by_id = {loc["id"]: loc for loc in facts.locations.get(npi, [])}
    ids = wanted if wanted is not None else list(by_id)
    locations = [_location_entry(by_id.get(i), i, rows) for i in ids]
    known = [loc for loc in locations if loc["networkStatus"] != "unknown"]
    status: Literal["in_network", "out_of_network", "unknown"]
    reason: Reason | None
    if wanted is None:
        status, reason = _status(rows), (None if rows else "no_participation_record")
    elif not known:
        status, reason = "unknown", "location_not_found"
    else:
        in_network = any(loc["networkStatus"] == "in_network" for loc in known)
        status, reason = ("in_network" if in_network else "out_of_network"), None
    return {
        "npi": npi,
        "provider": provider,
        "networkStatus": status,
        "reason": reason,
        "locations": locations,
    }


def evaluate(request: CoverageRequest, facts: StoredFacts, today: date) -> list[CoveragePlan]:
    day = request.asOf or today
    rows_by_pair: dict[tuple[str, str], list[CoverageDoc]] = defaultdict(list)
    for row in facts.coverage:
        if row["contractYear"] == request.contractYear and effective_on(row, day):
            rows_by_pair[(row["bidId"], row["npi"])].append(row)
    answer: list[CoveragePlan] = []
    for bid in request.bidIds:
        plan = facts.plans.get(bid)
        providers = [
            _provider_entry(
                item.npi,
                item.locationIds,
                facts,
                rows_by_pair.get((bid, item.npi), []),
                plan is not None,
            )
            for item in request.npis
        ]
        answer.append(
            {
                "contractYear": request.contractYear,
                "bidId": bid,
                "asOf": day.isoformat(),
                "plan": plan,
                "providers": providers,
            }
        )
    return answer
