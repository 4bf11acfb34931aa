"""What the FHIR API serves: its resource types, the search parameters of each (one table, read
by the parser, the query builder and the CapabilityStatement) and a parsed search."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

ResourceType = Literal[
    "Practitioner",
    "PractitionerRole",
    "Organization",
    "Location",
    "InsurancePlan",
    "OrganizationAffiliation",
    "HealthcareService",
    "Endpoint",
]
RESOURCE_TYPES: Final[tuple[ResourceType, ...]] = (
    "Practitioner",
    "PractitionerRole",
    "Organization",
    "Location",
    "InsurancePlan",
    "OrganizationAffiliation",
    "HealthcareService",
    "Endpoint",
)
# Published by payers' directories and served as they gave them (service.fhir.published).
PUBLISHED_TYPES: Final[tuple[ResourceType, ...]] = ("HealthcareService", "Endpoint")
TERMS = "terms"  # their parameters match the document's ``terms`` (core.fhir_terms.term)
ParamType = Literal["token", "string", "date", "reference", "special"]
Resource = dict[str, Any]
FHIR_PREFIX: Final = "/fhir"
FHIR_VERSION: Final = "4.0.1"
FHIR_JSON: Final = "application/fhir+json"
DEFAULT_COUNT: Final = 20
MAX_COUNT: Final = 100
DEFAULT_NEAR_MILES: Final = 25.0
MAX_NEAR_MILES: Final = 100.0
TEXT_PARAMETER: Final = "_text"


@dataclass(frozen=True)
class Param:
    """A search parameter: its type, the search-document field it reads (``None``: handled
    apart), whether each location of a hit is checked against it (Location searches), and the
    FHIRPath of the element (the CapabilityStatement's documentation)."""

    type: ParamType
    field: str | None
    expression: str
    per_location: bool = False


_ID = Param("token", "npi", "Resource.id")
_LAST_UPDATED = Param("date", "lastUpdated", "Resource.meta.lastUpdated")
_NAME = Param("string", "nameParts", "name")
_ADDRESS = Param("string", "addressParts", "address", per_location=True)
_CITY = Param("string", "cities", "address.city", per_location=True)
_STATE = Param("string", "states", "address.state", per_location=True)
_POSTAL = Param("string", "postalCodes", "address.postalCode", per_location=True)
_NEAR = Param("special", None, "position", per_location=True)
_TEXT = Param("special", None, "(the /v2 search's reading of free text)")
# Answered from the plans (service.fhir.plans): a provider has none of these.
_PAYER = Param("reference", None, "ownedBy")
_NETWORK = Param("reference", None, "extension('network-reference').value")

PARAMETERS: Final[dict[ResourceType, dict[str, Param]]] = {
    "Practitioner": {
        "_id": _ID,
        "_lastUpdated": _LAST_UPDATED,
        "name": _NAME,
        "family": Param("string", "familyNames", "name.family"),
        "given": Param("string", "givenNames", "name.given"),
        TEXT_PARAMETER: _TEXT,
    },
    "PractitionerRole": {
        "_id": _ID,
        "_lastUpdated": _LAST_UPDATED,
        "practitioner": Param("reference", "npi", "practitioner"),
        "practitioner.name": _NAME,
        "location": Param("reference", "locationIds", "location"),
        "location.address": _ADDRESS,
        "location.address-city": _CITY,
        "location.address-state": _STATE,
        "location.address-postalcode": _POSTAL,
        "specialty": Param("token", "taxonomyCodes", "specialty"),
        "role": Param("token", "roleCodes", "code"),
        "network": _NETWORK,
        "network.name": Param("string", None, "extension('network-reference').value.name"),
        "near": _NEAR,
        TEXT_PARAMETER: _TEXT,
    },
    "Organization": {
        "_id": _ID,
        "_lastUpdated": _LAST_UPDATED,
        "name": _NAME,
        "address": _ADDRESS,
        "type": Param("token", None, "type"),
        "partof": Param("reference", None, "partOf"),
        "partof.name": Param("string", None, "partOf.name"),
        TEXT_PARAMETER: _TEXT,
    },
    "Location": {
        "_id": Param("token", "locationIds", "Resource.id", per_location=True),
        "_lastUpdated": _LAST_UPDATED,
        "address": _ADDRESS,
        "address-city": _CITY,
        "address-state": _STATE,
        "address-postalcode": _POSTAL,
        "organization": Param("reference", "npi", "managingOrganization"),
        "organization.name": _NAME,
        "near": _NEAR,
    },
    "OrganizationAffiliation": {
        "_id": _ID,
        "_lastUpdated": _LAST_UPDATED,
        "participating-organization": Param("reference", "npi", "participatingOrganization"),
        "participating-organization.name": _NAME,
        "location": Param("reference", "locationIds", "location"),
        "location.address": _ADDRESS,
        "location.address-city": _CITY,
        "location.address-state": _STATE,
        "location.address-postalcode": _POSTAL,
        "network": _NETWORK,
        "network.name": Param("string", None, "network.name"),
        "specialty": Param("token", "taxonomyCodes", "specialty"),
    },
    "HealthcareService": {
        "_id": Param("token", TERMS, "Resource.id"),
        "_lastUpdated": Param("date", "lastUpdated", "Resource.meta.lastUpdated"),
        "name": Param("string", TERMS, "name"),
        "service-category": Param("token", TERMS, "category"),
        "service-type": Param("token", TERMS, "type"),
        "specialty": Param("token", TERMS, "specialty"),
        "organization": Param("reference", TERMS, "providedBy"),
        "organization.name": Param("string", TERMS, "providedBy.name"),
        "location.address": Param("string", TERMS, "location.address"),
        "location.address-city": Param("string", TERMS, "location.address.city"),
        "location.address-state": Param("string", TERMS, "location.address.state"),
        "location.address-postalcode": Param("string", TERMS, "location.address.postalCode"),
        "endpoint": Param("reference", TERMS, "endpoint"),
    },
    "Endpoint": {
        "_id": Param("token", TERMS, "Resource.id"),
        "_lastUpdated": Param("date", "lastUpdated", "Resource.meta.lastUpdated"),
        "organization": Param("reference", TERMS, "managingOrganization"),
        "organization.name": Param("string", TERMS, "managingOrganization.name"),
    },
    "InsurancePlan": {
        "_id": Param("token", None, "Resource.id"),
        "_lastUpdated": Param("date", None, "Resource.meta.lastUpdated"),
        "name": Param("string", None, "name"),
        "identifier": Param("token", None, "identifier"),
        "type": Param("token", None, "type"),
        "owned-by": _PAYER,
        "owned-by.name": Param("string", None, "ownedBy.name"),
        "administered-by": Param("reference", None, "administeredBy"),
        "administered-by.name": Param("string", None, "administeredBy.name"),
    },
}
# The resource type a reference parameter points at.
TARGETS: Final[dict[str, ResourceType]] = {
    "practitioner": "Practitioner",
    "location": "Location",
    "organization": "Organization",
    "network": "Organization",
    "partof": "Organization",
    "owned-by": "Organization",
    "administered-by": "Organization",
    "participating-organization": "Organization",
    "endpoint": "Endpoint",
}
INCLUDES: Final[dict[ResourceType, tuple[str, ...]]] = {
    "Practitioner": (),
    "PractitionerRole": (
        "PractitionerRole:practitioner",
        "PractitionerRole:location",
        "PractitionerRole:network",
    ),
    "Organization": ("Organization:partof",),
    "Location": ("Location:organization",),
    "InsurancePlan": ("InsurancePlan:owned-by", "InsurancePlan:administered-by"),
    "OrganizationAffiliation": (
        "OrganizationAffiliation:participating-organization",
        "OrganizationAffiliation:location",
        "OrganizationAffiliation:network",
    ),
    "HealthcareService": ("HealthcareService:organization", "HealthcareService:endpoint"),
    "Endpoint": ("Endpoint:organization",),
}
REVINCLUDES: Final[dict[ResourceType, tuple[str, ...]]] = {
    "Practitioner": ("PractitionerRole:practitioner",),
    "PractitionerRole": (),
    "Organization": (
        "Location:organization",
        "OrganizationAffiliation:participating-organization",
        "HealthcareService:organization",
        "Endpoint:organization",
    ),
    "Location": ("PractitionerRole:location",),
    "InsurancePlan": (),
    "OrganizationAffiliation": (),
    "HealthcareService": (),
    "Endpoint": (),
}
# Result parameters: how many, which page, what else, how to answer.
CONTROL_PARAMETERS: Final = frozenset(
    {"_count", "_cursor", "_include", "_revinclude", "_format", "_total"}
)


@dataclass(frozen=True)
class Clause:
    """One parameter as given: its values are alternatives (a comma), clauses all hold."""

    name: str
    param: Param
    values: tuple[str, ...]
    modifier: str | None = None
    prefixes: tuple[str, ...] = ()  # date comparators, one per value ("eq" when none)


@dataclass(frozen=True)
class Near:
    lat: float
    lng: float
    miles: float


@dataclass(frozen=True)
class Search:
    """A search-type request, read: what to match, how many, from where, what else."""

    kind: ResourceType
    clauses: tuple[Clause, ...] = ()
    count: int = DEFAULT_COUNT
    cursor: str | None = None
    includes: tuple[str, ...] = ()
    revincludes: tuple[str, ...] = ()
    near: Near | None = None
    text: str | None = None
    # Given and used, in order, for the self link; and what lenient handling left out.
    applied: tuple[tuple[str, str], ...] = ()
    ignored: tuple[str, ...] = field(default=())
    # The plan years each network clause names (service.fhir.search resolves them): a role
    # matches with an in-network row of one of each tuple's years in force on the day.
    network_keys: tuple[tuple[str, ...], ...] = ()
