"""The compact view of a coverage answer (pure): each provider and its locations once, and under
every plan only the statuses, referring to them by NPI and location id."""

from __future__ import annotations

from service.coverage.evaluate import StoredFacts
from service.coverage.models import (
    CompactCoverage,
    CoverageLocation,
    CoveragePlan,
    CoverageProvider,
    LocationStatus,
    ProviderStatus,
    UnknownCoverageLocation,
)


def _location_status(entry: CoverageLocation | UnknownCoverageLocation) -> LocationStatus:
    return {
        "id": entry["id"],
        "networkStatus": entry["networkStatus"],
        "reason": entry["reason"],
        "acceptingNewPatients": entry["acceptingNewPatients"],
        "effectiveDate": entry["effectiveDate"],
        "terminationDate": entry["terminationDate"],
    }


def _provider_status(entry: CoverageProvider) -> ProviderStatus:
    return {
        "npi": entry["npi"],
        "networkStatus": entry["networkStatus"],
        "reason": entry["reason"],
        "locations": [_location_status(location) for location in entry["locations"]],
    }


def compact(plans: list[CoveragePlan], facts: StoredFacts) -> CompactCoverage:
    return {
        "plans": [
            {
                "contractYear": plan["contractYear"],
                "bidId": plan["bidId"],
                "asOf": plan["asOf"],
                "plan": plan["plan"],
                "providers": [_provider_status(entry) for entry in plan["providers"]],
            }
            for plan in plans
        ],
        "providers": {
            npi: {"provider": provider, "locations": facts.locations.get(npi, [])}
            for npi, provider in facts.providers.items()
        },
    }
