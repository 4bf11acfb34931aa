"""The coverage check's views of the statuses (pure): statuses grouped by bid id, then NPI, in
request order (``plan_statuses``), and the full answer with every provider and location written
out under each plan (``evaluate``); who is in network is the network kit's rule
(``service.network_kit.evaluate.statuses``)."""

from __future__ import annotations

from datetime import date
from typing import cast

from core.documents import Location
from service.coverage.models import (
    CoverageLocation,
    CoveragePlan,
    CoverageProvider,
    CoverageRequest,
    UnknownCoverageLocation,
)
from service.network_kit.evaluate import StoredFacts, statuses
from service.network_kit.models import LocationStatus, PlanStatuses


def plan_statuses(request: CoverageRequest, facts: StoredFacts, today: date) -> list[PlanStatuses]:
    return statuses(request.plans, request.npis, request.contractYear, request.asOf or today, facts)


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
                    "flags": entry["flags"],
                    "locations": [_written_out(loc, by_id) for loc in entry["locations"]],
                }
            )
        answer.append({**plan, "providers": providers})
    return answer
