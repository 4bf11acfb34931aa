"""What ``_include`` and ``_revinclude`` bring along (pure). The pairs between a provider's
resources join one hit, so they come from it without another read; networks and payers come
from the plans' resources (service.fhir.render.plans), found by reference in ``plans``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.documents import Location
from core.plan_resources import network_id
from service.fhir.models import Resource, Search
from service.fhir.render.elements import ListedProvider
from service.fhir.render.resources import (
    location,
    organization,
    organization_affiliation,
    practitioner,
    practitioner_roles,
)
from service.fhir.search.include_table import NAMED_BY_NOTHING, POINTING_NOWHERE

PlanIndex = Mapping[str, Resource]  # "Organization/id" -> a payer or network
PLAN_INCLUDES = {
    "InsurancePlan:owned-by": "ownedBy",
    "InsurancePlan:administered-by": "administeredBy",
    "Organization:partof": "partOf",
    "InsurancePlan:coverage-area": "coverageArea",
}
# Brought along by another step: published resources (service.fhir.sources.published), a
# payer's plans and a network's roles (service.fhir.searching).
ELSEWHERE = frozenset(
    {
        "HealthcareService:organization",
        "Endpoint:organization",
        "InsurancePlan:owned-by",
        "InsurancePlan:administered-by",
        "PractitionerRole:network",
    }
)


def _included(
    name: str,
    provider: ListedProvider,
    locations: Sequence[Location],
    everywhere: Sequence[Location],
    networks: Sequence[str],
    plans: PlanIndex,
) -> list[Resource]:
    individual = provider["entityType"] == "individual"
    if name == "PractitionerRole:practitioner":
        return [practitioner(provider)]
    if name == "OrganizationAffiliation:participating-organization":
        return [organization(provider, everywhere)]
    if name in ("PractitionerRole:location", "OrganizationAffiliation:location"):
        return [location(provider, place) for place in locations]
    if name in ("PractitionerRole:network", "OrganizationAffiliation:network"):
        found = (plans.get(f"Organization/{network_id(key)}") for key in networks)
        return [network for network in found if network is not None]
    if name == "Location:organization":
        return [] if individual else [organization(provider, everywhere)]
    if name in POINTING_NOWHERE or name in PLAN_INCLUDES:
        return []
    raise ValueError(f"no _include {name}")


def _revincluded(
    name: str,
    provider: ListedProvider,
    everywhere: Sequence[Location],
    networks: Sequence[str],
) -> list[Resource]:
    individual = provider["entityType"] == "individual"
    if name in ("PractitionerRole:practitioner", "PractitionerRole:location"):
        return practitioner_roles(provider, everywhere, networks) if individual else []
    if name == "Location:organization":
        return [] if individual else [location(provider, place) for place in everywhere]
    if name in (
        "OrganizationAffiliation:participating-organization",
        "OrganizationAffiliation:location",
    ):
        in_networks = not individual and bool(networks)
        return [organization_affiliation(provider, everywhere, networks)] if in_networks else []
    if name in ELSEWHERE or any(name in names for names in NAMED_BY_NOTHING.values()):
        return []
    raise ValueError(f"no _revinclude {name}")


def brought_along(
    search: Search,
    provider: ListedProvider,
    matched: Sequence[Location],
    everywhere: Sequence[Location],
    networks: Sequence[str] = (),
    plans: PlanIndex | None = None,
) -> list[Resource]:
    """``matched``: the locations that are matches themselves (a Location search) or that the
    matched resource points at; ``everywhere``: all of the provider's locations; ``networks``:
    the plan years of its in-network rows in force."""
    found: list[Resource] = []
    for name in search.includes:
        found += _included(name, provider, matched, everywhere, networks, plans or {})
    for name in search.revincludes:
        found += _revincluded(name, provider, everywhere, networks)
    return found


def plan_references(search: Search, resource: Resource, plans: PlanIndex) -> list[Resource]:
    """``_include`` of a plan's or a network's references (owned-by, administered-by, partof)."""
    elements = PLAN_INCLUDES
    found = []
    for name in search.includes:
        element = resource.get(elements.get(name, ""))
        pointers = element if isinstance(element, list) else [element] if element else []
        found += [
            plans[pointer["reference"]] for pointer in pointers if pointer["reference"] in plans
        ]
    for name in search.revincludes:  # a payer's plans
        if name.startswith("InsurancePlan:"):
            element = elements[name]
            found += [
                plan
                for plan in plans.values()
                if plan["resourceType"] == "InsurancePlan"
                and plan[element]["reference"] == f"Organization/{resource['id']}"
            ]
    return found
