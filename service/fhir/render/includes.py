"""What ``_include`` and ``_revinclude`` bring along (pure). The pairs between a provider's
resources join one hit, so they come from it without another read; networks and payers come
from the plans' resources (service.fhir.render.plans), found by reference in ``plans``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

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
# payer's plans and a network's roles (service.fhir.sources.organizations).
ELSEWHERE = frozenset(
    {
        "HealthcareService:organization",
        "Endpoint:organization",
        "InsurancePlan:owned-by",
        "InsurancePlan:administered-by",
        "PractitionerRole:network",
    }
)


@dataclass(frozen=True)
class _Hit:
    """One provider's hit as an include reads it: ``matched``: the locations that are matches
    themselves or that the matched resource points at; ``everywhere``: all of its locations."""

    provider: ListedProvider
    matched: Sequence[Location]
    everywhere: Sequence[Location]
    networks: Sequence[str]
    plans: PlanIndex

    @property
    def individual(self) -> bool:
        return self.provider["entityType"] == "individual"


def _networks(hit: _Hit) -> list[Resource]:
    found = (hit.plans.get(f"Organization/{network_id(key)}") for key in hit.networks)
    return [network for network in found if network is not None]


def _matched_sites(hit: _Hit) -> list[Resource]:
    return [location(hit.provider, place) for place in hit.matched]


def _nothing(hit: _Hit) -> list[Resource]:
    return []


_INCLUDED: dict[str, Callable[[_Hit], list[Resource]]] = {
    **dict.fromkeys((*POINTING_NOWHERE, *PLAN_INCLUDES), _nothing),
    "PractitionerRole:practitioner": lambda hit: [practitioner(hit.provider)],
    "OrganizationAffiliation:participating-organization": lambda hit: [
        organization(hit.provider, hit.everywhere)
    ],
    "PractitionerRole:location": _matched_sites,
    "OrganizationAffiliation:location": _matched_sites,
    "PractitionerRole:network": _networks,
    "OrganizationAffiliation:network": _networks,
    "Location:organization": lambda hit: (
        [] if hit.individual else [organization(hit.provider, hit.everywhere)]
    ),
}


def _roles(hit: _Hit) -> list[Resource]:
    if not hit.individual:
        return []
    return practitioner_roles(hit.provider, hit.everywhere, hit.networks)


def _affiliation(hit: _Hit) -> list[Resource]:
    if hit.individual or not hit.networks:
        return []
    return [organization_affiliation(hit.provider, hit.everywhere, hit.networks)]


# Brought along by another step or named by nothing served: nothing from the hit.
_REVINCLUDED: dict[str, Callable[[_Hit], list[Resource]]] = {
    **dict.fromkeys(
        (*ELSEWHERE, *(name for names in NAMED_BY_NOTHING.values() for name in names)), _nothing
    ),
    "PractitionerRole:practitioner": _roles,
    "PractitionerRole:location": _roles,
    "Location:organization": lambda hit: (
        [] if hit.individual else [location(hit.provider, p) for p in hit.everywhere]
    ),
    "OrganizationAffiliation:participating-organization": _affiliation,
    "OrganizationAffiliation:location": _affiliation,
}


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
    hit = _Hit(provider, matched, everywhere, networks, plans or {})
    found: list[Resource] = []
    for name in search.includes:
        if name not in _INCLUDED:
            raise ValueError(f"no _include {name}")
        found += _INCLUDED[name](hit)
    for name in search.revincludes:
        if name not in _REVINCLUDED:
            raise ValueError(f"no _revinclude {name}")
        found += _REVINCLUDED[name](hit)
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
                if plan["resourceType"] == name.partition(":")[0]
                and plan[element]["reference"] == f"Organization/{resource['id']}"
            ]
    return found
