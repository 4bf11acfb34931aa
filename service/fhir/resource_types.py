"""The one table of the served resource types: for each, the source its resources are found and
read in, the parameters it is searched by, how a provider's hit renders as its resources (for
the types built from providers: a search, ``_text`` and an export render them alike), and what
its searches read first. Adding a type is an entry here, its parameters
(service.fhir.search.parameters) and its modules; nothing else asks a resource type's name.

Where each type lives:

- Practitioner, OrganizationAffiliation: a resource per search document
  (service.fhir.sources.documents);
- PractitionerRole, Location: several per search document, a role per network, a Location per
  practice site (service.fhir.sources.expanded), and for Location then the counties plans are
  sold in (service.fhir.sources.locations);
- Organization: the provider organisations, then the payers and networks built from the plans
  (service.fhir.sources.organizations);
- InsurancePlan: built from the plans (service.fhir.sources.plans);
- HealthcareService, Endpoint: what payers publish (service.fhir.sources.published).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from core.network import role_provider_key
from service.fhir.models import Param, Resource, ResourceType
from service.fhir.render.plans import PlanResources
from service.fhir.render.resources import (
    AFFILIATIONS,
    PRACTICE_SITES,
    PRACTITIONER_ROLES,
    PRACTITIONERS,
    PROVIDER_ORGANIZATIONS,
    ProviderResources,
)
from service.fhir.search.parameters import PARAMETERS
from service.fhir.sources.documents import ProviderDocuments
from service.fhir.sources.expanded import PractitionerRoles
from service.fhir.sources.locations import Locations
from service.fhir.sources.organizations import Organizations
from service.fhir.sources.plans import PlanBuilt
from service.fhir.sources.published import Published
from service.fhir.sources.source import Source


@dataclass(frozen=True)
class ServedType:
    """``rendered``: how a provider's hit gives this type's resources (None: not built from
    providers); ``by_text``: the source a ``_text`` search's hits are rendered by;
    ``reads_plans``: its searches always read the plans' resources; ``network_members``: a
    ``network`` parameter names plan years its providers are in; ``plan_built``: which of the
    plans' resources are of this type (an export's plan-built file)."""

    source: Source
    parameters: Mapping[str, Param]
    rendered: ProviderResources | None = None
    by_text: ProviderDocuments | None = None
    reads_plans: bool = False
    network_members: bool = False
    plan_built: Callable[[PlanResources], list[Resource]] | None = None


_PRACTITIONERS = ProviderDocuments(PRACTITIONERS)
_ROLES = ProviderDocuments(PRACTITIONER_ROLES, role_provider_key, asked_networks_only=True)
_ORGANIZATIONS = ProviderDocuments(PROVIDER_ORGANIZATIONS)
_AFFILIATIONS = ProviderDocuments(AFFILIATIONS)
_PUBLISHED = Published()


def _insurance_plans(plans: PlanResources) -> list[Resource]:
    return plans.insurance_plans


_ROLE_PAGES = PractitionerRoles(_ROLES)
_ORGANIZATION_PAGES = Organizations(_ORGANIZATIONS)
_P = PARAMETERS

SERVED: Final[dict[ResourceType, ServedType]] = {
    "Practitioner": ServedType(_PRACTITIONERS, _P["Practitioner"], PRACTITIONERS, _PRACTITIONERS),
    "PractitionerRole": ServedType(
        _ROLE_PAGES, _P["PractitionerRole"], PRACTITIONER_ROLES, _ROLES, network_members=True
    ),
    "Organization": ServedType(
        _ORGANIZATION_PAGES,
        _P["Organization"],
        PROVIDER_ORGANIZATIONS,
        _ORGANIZATIONS,
        reads_plans=True,
        plan_built=lambda plans: plans.organizations,
    ),
    "Location": ServedType(
        Locations(), _P["Location"], PRACTICE_SITES, plan_built=lambda plans: plans.areas
    ),
    "InsurancePlan": ServedType(
        PlanBuilt(_insurance_plans),
        _P["InsurancePlan"],
        reads_plans=True,
        plan_built=_insurance_plans,
    ),
    "OrganizationAffiliation": ServedType(
        _AFFILIATIONS, _P["OrganizationAffiliation"], AFFILIATIONS, network_members=True
    ),
    "HealthcareService": ServedType(_PUBLISHED, _P["HealthcareService"]),
    "Endpoint": ServedType(_PUBLISHED, _P["Endpoint"]),
}
