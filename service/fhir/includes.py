"""What ``_include`` and ``_revinclude`` bring along (pure). Every pair the API serves joins
resources of one provider, so they come from the same hit, without another read."""

from __future__ import annotations

from collections.abc import Sequence

from core.documents import Location, Provider
from service.fhir.models import Resource, Search
from service.fhir.resources import location, organization, practitioner, practitioner_role


def _included(
    name: str, provider: Provider, locations: Sequence[Location], everywhere: Sequence[Location]
) -> list[Resource]:
    individual = provider["entityType"] == "individual"
    if name == "PractitionerRole:practitioner":
        return [practitioner(provider)]
    if name == "PractitionerRole:location":
        return [location(provider, place) for place in locations]
    if name == "Location:organization":
        return [] if individual else [organization(provider, everywhere)]
    raise ValueError(f"no _include {name}")


def _revincluded(
    name: str, provider: Provider, locations: Sequence[Location], everywhere: Sequence[Location]
) -> list[Resource]:
    individual = provider["entityType"] == "individual"
    if name in ("PractitionerRole:practitioner", "PractitionerRole:location"):
        return [practitioner_role(provider, everywhere)] if individual else []
    if name == "Location:organization":
        return [] if individual else [location(provider, place) for place in everywhere]
    raise ValueError(f"no _revinclude {name}")


def brought_along(
    search: Search,
    provider: Provider,
    matched: Sequence[Location],
    everywhere: Sequence[Location],
) -> list[Resource]:
    """``matched``: the locations that are matches themselves (a Location search) or that the
    matched resource points at; ``everywhere``: all of the provider's locations."""
    found: list[Resource] = []
    for name in search.includes:
        found += _included(name, provider, matched, everywhere)
    for name in search.revincludes:
        found += _revincluded(name, provider, matched, everywhere)
    return found
