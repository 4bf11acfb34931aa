"""An area's plans with the asked NPIs' statuses, in the asked order, one page (pure)."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import date

from core.plan_offers import OfferedPlan
from core.plans import plan_key_of
from service.network_kit.evaluate import StoredFacts, statuses
from service.network_kit.models import ProviderStatus
from service.plans.models import PlanMatch, PlanSearchRequest, PlanSort

SortKey = Callable[[PlanMatch], tuple[float, ...]]


def _stars(plan: PlanMatch) -> float:
    rating = plan["starRating"]
    return rating["overall"] if rating and rating["overall"] is not None else -math.inf


def _premium(plan: PlanMatch) -> float:
    premium = plan["monthlyPremium"]
    return premium if premium is not None else math.inf


# Unknown stars sort as the fewest, an unknown premium as the highest.
ORDERS: dict[PlanSort, SortKey] = {
    "providers": lambda p: (-p["inNetworkCount"], -_stars(p), _premium(p)),
    "premium": lambda p: (_premium(p), -_stars(p), -p["inNetworkCount"]),
    "stars": lambda p: (-_stars(p), _premium(p), -p["inNetworkCount"]),
}


def accepting(status: ProviderStatus) -> bool | None:
    """Whether the provider takes new patients at an in-network location (None: unknown)."""
    said = [
        loc["acceptingNewPatients"]
        for loc in status["locations"]
        if loc["networkStatus"] == "in_network" and loc["acceptingNewPatients"] is not None
    ]
    return any(said) if said else None


def with_statuses(
    request: PlanSearchRequest,
    offers: list[OfferedPlan],
    facts: StoredFacts,
    year: int,
    day: date,
) -> list[PlanMatch]:
    """Each plan with each asked NPI's status (the coverage rule), in the order given."""
    asked = [(plan_key_of(plan), plan["bidId"], None) for plan in offers]
    found = statuses(asked, request.npis, year, day, facts)
    return [
        {
            **offer,
            "providers": [
                {**status, "acceptingNewPatients": accepting(status)}
                for status in entry["providers"]
            ],
            "inNetworkCount": sum(p["networkStatus"] == "in_network" for p in entry["providers"]),
        }
        for offer, entry in zip(offers, found, strict=True)
    ]


def in_order(request: PlanSearchRequest, plans: list[PlanMatch]) -> list[PlanMatch]:
    """The asked order; ties by bid id, so pages never overlap."""
    order = ORDERS[request.sort]
    return sorted(plans, key=lambda plan: (*order(plan), plan["bidId"] or ""))
