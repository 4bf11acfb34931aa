"""Who is in network, when (pure): the stored plans, providers, locations and coverage rows of
one question -> each plan's status of each NPI on a day (``statuses``), by the one rule of
in-network participation, for the coverage check and the plan search alike."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Final

from core.documents import CoverageDoc, Location, NetworkStatus, Plan, Provider
from core.network import AnsweredStatus, in_force
from core.quality import QualityCode
from service.network_kit.models import (
    LocationStatus,
    NpiRequest,
    PlanStatuses,
    ProviderStatus,
    Reason,
)


@dataclass(frozen=True)
class StoredFacts:
    plans: dict[str, Plan]  # plan key (core.plans.plan_key) -> plan of the request's year
    providers: dict[str, Provider]  # npi -> provider
    locations: dict[str, list[Location]]  # npi -> its locations
    coverage: list[CoverageDoc]
    # The plan keys whose participation rows of the year name anyone (their plan documents'
    # flag, ``networkRows``): a plan without any has no network in the
    # directory, so it cannot say whether a provider is in it.
    networks: frozenset[str] = frozenset()
    flags: dict[str, list[QualityCode]] = field(default_factory=dict)  # npi -> its notes' codes


def _status(rows: list[CoverageDoc]) -> NetworkStatus:
    in_network = any(r["networkStatus"] == "in_network" for r in rows)
    return "in_network" if in_network else "out_of_network"


_NOT_LISTED: Final = "no_network_record"


def _location_status(
    location_id: str, known: Location | None, rows: list[CoverageDoc], has_network: bool
) -> LocationStatus:
    if known is None or not has_network:
        return {
            "id": location_id,
            "networkStatus": "unknown",
            "reason": "location_not_found" if known is None else _NOT_LISTED,
            "acceptingNewPatients": None,
            "effectiveDate": None,
            "terminationDate": None,
            "participationSource": None,
            "confidence": known["confidence"] if known else None,
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
        "confidence": known["confidence"],
    }


@dataclass(frozen=True)
class _Listed:
    """A provider of the directory: its locations by id, and its flags."""

    locations: dict[str, Location]
    flags: list[QualityCode]


def _listed(facts: StoredFacts) -> dict[str, _Listed]:
    return {
        npi: _Listed(
            {location["id"]: location for location in facts.locations.get(npi, [])},
            facts.flags.get(npi, []),
        )
        for npi in facts.providers
    }


def _provider_status(
    npi: str,
    wanted: list[str] | None,
    listed: _Listed | None,  # None: the provider is not in the directory
    rows: list[CoverageDoc],  # the pair's rows in force on the day
    plan_known: bool,
    has_network: bool,  # the plan's rows of the year name someone
) -> ProviderStatus:
    if not plan_known or listed is None:
        return {
            "npi": npi,
            "networkStatus": "unknown",
            "reason": "plan_not_found" if not plan_known else "provider_not_found",
            "flags": listed.flags if listed else [],
            "locations": [],
        }
    ids = wanted if wanted is not None else list(listed.locations)
    known = listed.locations
    locations = [_location_status(i, known.get(i), rows, has_network) for i in ids]
    found = [loc for loc in locations if loc["reason"] != "location_not_found"]
    status: AnsweredStatus
    reason: Reason | None
    if wanted is not None and not found:
        status, reason = "unknown", "location_not_found"
    elif not has_network:  # no network in the directory: it cannot say either way
        status, reason = "unknown", _NOT_LISTED
    elif wanted is None:
        status, reason = _status(rows), (None if rows else "no_participation_record")
    else:
        in_network = any(loc["networkStatus"] == "in_network" for loc in found)
        status, reason = ("in_network" if in_network else "out_of_network"), None
    return {
        "npi": npi,
        "networkStatus": status,
        "reason": reason,
        "flags": listed.flags,
        "locations": locations,
    }


PlanAsked = tuple[str, str | None, str | None]  # (plan key, bid id, payer plan id)


def statuses(
    plans: Sequence[PlanAsked],
    npis: Sequence[NpiRequest],
    contract_year: int,
    day: date,
    facts: StoredFacts,
) -> list[PlanStatuses]:
    """Each plan's status of each NPI on ``day``: the one rule of in-network participation
    (rows in force, ``core.network.in_force``), for the coverage check and the plan search."""
    rows_by_pair: dict[tuple[str, str], list[CoverageDoc]] = defaultdict(list)
    networks = facts.networks | {
        row["bidId"] for row in facts.coverage if row["contractYear"] == contract_year
    }
    for row in facts.coverage:
        if row["contractYear"] == contract_year and in_force(row, day):
            rows_by_pair[(row["bidId"], row["npi"])].append(row)
    listed = _listed(facts)
    # Most (plan, provider) pairs of a request have no row: such a provider's status is the same
    # in every known plan, so it is built once per requested provider and shared (never mutated).
    without_rows: dict[bool, list[ProviderStatus]] = {}

    def shared(has_network: bool, index: int) -> ProviderStatus:
        if has_network not in without_rows:  # built once, when first needed
            without_rows[has_network] = [
                _provider_status(
                    item.npi, item.locationIds, listed.get(item.npi), [], True, has_network
                )
                for item in npis
            ]
        return without_rows[has_network][index]

    def status(key: str, index: int, item: NpiRequest) -> ProviderStatus:
        rows = rows_by_pair.get((key, item.npi))
        if rows is None and key in facts.plans:
            return shared(key in networks, index)
        return _provider_status(
            item.npi,
            item.locationIds,
            listed.get(item.npi),
            rows or [],
            key in facts.plans,
            key in networks,
        )

    return [
        {
            "contractYear": contract_year,
            "bidId": bid,
            "payerPlanId": payer_plan_id,
            "asOf": day.isoformat(),
            "plan": facts.plans.get(key),
            "providers": [status(key, i, item) for i, item in enumerate(npis)],
        }
        for key, bid, payer_plan_id in plans
    ]
