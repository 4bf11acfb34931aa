"""The compact view of a coverage answer (pure): each provider and its locations once, and under
every plan only the statuses, referring to them by NPI and location id."""

from __future__ import annotations

from service.coverage.models import CompactCoverage
from service.network_kit.evaluate import StoredFacts
from service.network_kit.models import PlanStatuses


def compact(plans: list[PlanStatuses], facts: StoredFacts) -> CompactCoverage:
    return {
        "plans": plans,
        "providers": {
            npi: {"provider": provider, "locations": facts.locations.get(npi, [])}
            for npi, provider in facts.providers.items()
        },
    }
