"""What the FHIR API serves: its resource types, what a search parameter is (the table of them:
service.fhir.search.parameters) and a parsed search."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal, get_args

from core.documents import EntityType, Json
from core.index_contract import PLAN_FIELDS
from service.search_kit.limits import MAX_PAGE_SIZE, MAX_RADIUS_MILES

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
RESOURCE_TYPES: Final[tuple[ResourceType, ...]] = get_args(ResourceType)
# Published by payers' directories and served as they gave them (service.fhir.render.published).
PUBLISHED_TYPES: Final[tuple[ResourceType, ...]] = ("HealthcareService", "Endpoint")
# The providers a type's resources are built from (None: not providers, or both kinds).
ENTITY_TYPES: Final[dict[ResourceType, EntityType | None]] = {
    "Practitioner": "individual",
    "PractitionerRole": "individual",
    "Organization": "organization",
    "Location": None,
    "InsurancePlan": None,
    "OrganizationAffiliation": "organization",
    "HealthcareService": None,
    "Endpoint": None,
}
Summary = Literal["true", "text", "data", "false"]
SUMMARIES: Final = ("true", "text", "data", "false")
# Plan-Net 1.1.0 OrgTypeCS has no "prov" (1.0.0 had): a provider organisation is a provider group.
PROVIDER_ORGANIZATION: Final = ("prvgrp", "Provider Group")
TERMS = PLAN_FIELDS.terms  # their parameters match the document's ``terms`` (core.fhir_terms.term)
ParamType = Literal["token", "string", "date", "reference", "special"]
Resource = Json  # a FHIR resource (or element) as JSON
FHIR_PREFIX: Final = "/fhir"
FHIR_VERSION: Final = "4.0.1"
FHIR_JSON: Final = "application/fhir+json"
DEFAULT_COUNT: Final = 20
MAX_COUNT: Final = MAX_PAGE_SIZE
DEFAULT_NEAR_MILES: Final = 25.0
MAX_NEAR_MILES: Final = MAX_RADIUS_MILES
TEXT_PARAMETER: Final = "_text"
# The units a near distance may be given in: miles per unit, and the unit's UCUM code.
NEAR_UNITS: Final = {
    "mi": (1.0, "[mi_i]"),
    "[mi_i]": (1.0, "[mi_i]"),
    "[mi_us]": (1.0, "[mi_us]"),
    "km": (0.621371, "km"),
    "m": (0.000621371, "m"),
}


@dataclass(frozen=True)
class Subset:
    """What a resource is reduced to: a summary, or the top-level elements named."""

    summary: Summary = "false"
    elements: tuple[str, ...] = ()

    @property
    def whole(self) -> bool:
        return self.summary == "false" and not self.elements


@dataclass(frozen=True)
class Param:
    """A search parameter: its type, the search-document field it reads (``None``: handled
    apart), whether each location of a hit is checked against it (Location searches), the
    FHIRPath of the element (the CapabilityStatement's documentation), and the other fields
    whose terms it matches too (a term one field holds is not indexed again in another)."""

    type: ParamType
    field: str | None
    expression: str
    per_location: bool = False
    also: tuple[str, ...] = ()


@dataclass(frozen=True)
class Clause:
    """One parameter as given: its values are alternatives (a comma), clauses all hold."""

    name: str
    param: Param
    values: tuple[str, ...]
    modifier: str | None = None
    prefixes: tuple[str, ...] = ()  # date comparators, one per value ("eq" when none)
    # A chain resolved across stores (service.fhir.sources.chains): the ``Type/id`` of every target
    # it matches; None when the chain is answered otherwise (service.fhir.search.chain_table).
    resolved: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Near:
    lat: float
    lng: float
    miles: float
    unit: str = "mi"  # as asked: each match's distance is given in it (NEAR_UNITS)


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
    # The plan years each network clause names (service.fhir.searching resolves them): a role
    # matches with an in-network row of one of each tuple's years in force on the day.
    network_keys: tuple[tuple[str, ...], ...] = ()
    # _summary (but count) and _elements: what each resource keeps.
    subset: Subset = field(default_factory=Subset)
