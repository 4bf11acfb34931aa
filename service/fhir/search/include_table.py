"""The includes and reverse includes each served type takes (read by the parser, the
include builder and the CapabilityStatement)."""

from __future__ import annotations

from typing import Final

from service.fhir.models import ResourceType

# Includes through elements the served resources never have: declared, they bring nothing.
POINTING_NOWHERE: Final = frozenset(
    {
        "PractitionerRole:organization",
        "PractitionerRole:service",
        "PractitionerRole:endpoint",
        "Organization:endpoint",
        "Organization:coverage-area",
        "Location:endpoint",
        "Location:partof",
        "OrganizationAffiliation:primary-organization",
        "OrganizationAffiliation:service",
        "OrganizationAffiliation:endpoint",
        "HealthcareService:location",
        "HealthcareService:coverage-area",
    }
)


_OWN_INCLUDES: Final[dict[ResourceType, tuple[str, ...]]] = {
    "Practitioner": (),
    "PractitionerRole": (
        "PractitionerRole:practitioner",
        "PractitionerRole:location",
        "PractitionerRole:network",
    ),
    "Organization": ("Organization:partof",),
    "Location": ("Location:organization",),
    "InsurancePlan": (
        "InsurancePlan:owned-by",
        "InsurancePlan:administered-by",
        "InsurancePlan:coverage-area",
    ),
    "OrganizationAffiliation": (
        "OrganizationAffiliation:participating-organization",
        "OrganizationAffiliation:location",
        "OrganizationAffiliation:network",
    ),
    "HealthcareService": ("HealthcareService:organization", "HealthcareService:endpoint"),
    "Endpoint": ("Endpoint:organization",),
}
# Each type's includes, then those of its that point nowhere.
INCLUDES: Final[dict[ResourceType, tuple[str, ...]]] = {
    kind: (*own, *sorted(n for n in POINTING_NOWHERE if n.startswith(kind + ":")))
    for kind, own in _OWN_INCLUDES.items()
}
# Reverse includes that name no resource built from the search index: declared, they bring nothing
# along for those (a county's plans, InsurancePlan:coverage-area, come from location_search).
NAMED_BY_NOTHING: Final[dict[str, tuple[str, ...]]] = {
    "Organization": (
        "PractitionerRole:organization",
        "OrganizationAffiliation:primary-organization",
    ),
    "Location": ("HealthcareService:location", "InsurancePlan:coverage-area"),
    "HealthcareService": ("PractitionerRole:service", "OrganizationAffiliation:service"),
}
REVINCLUDES: Final[dict[ResourceType, tuple[str, ...]]] = {
    "Practitioner": ("PractitionerRole:practitioner",),
    "PractitionerRole": (),
    "Organization": (
        "Location:organization",
        "OrganizationAffiliation:participating-organization",
        "HealthcareService:organization",
        "Endpoint:organization",
        "InsurancePlan:owned-by",
        "InsurancePlan:administered-by",
        "PractitionerRole:network",
        *NAMED_BY_NOTHING["Organization"],
    ),
    "Location": (
        "PractitionerRole:location",
        "OrganizationAffiliation:location",
        *NAMED_BY_NOTHING["Location"],
    ),
    "InsurancePlan": (),
    "OrganizationAffiliation": (),
    "HealthcareService": NAMED_BY_NOTHING["HealthcareService"],
    "Endpoint": (),
}
