"""The search parameters of each served type: one table, read by the parser, the query
builders and the CapabilityStatement, with what each reads and the includes each type takes."""

from __future__ import annotations

from typing import Final

from core.changes import CHANGED_AT
from core.index_contract import SEARCH_FIELDS as F
from service.fhir.models import TERMS, TEXT_PARAMETER, Param, ParamType, ResourceType

# A provider organisation's type is OrgTypeCS "prvgrp" (the query answers it, no field holds it).
PROVIDER_TYPE: Final = "@provider-type"
# A provider's identifier: its NPI, in the NPI system (``system|value``, ``|value`` or a value).
NPI_IDENTIFIER: Final = "@npi-identifier"
# A role's id: its provider's key, then its network (core.network.role_id).
ROLE_ID: Final = "@role-id"


def absent(kind: ParamType, expression: str) -> Param:
    """A parameter of an element the resources of this type never have: it matches nothing,
    which is the true answer (declared so that a client asking is not answered as if it had
    not asked)."""
    return Param(kind, None, expression)


_ID = Param("token", F.npi, "Resource.id")
_ROLE_ID = Param("token", ROLE_ID, "Resource.id")
_LAST_UPDATED = Param("date", CHANGED_AT, "Resource.meta.lastUpdated")
_IDENTIFIER = Param("token", NPI_IDENTIFIER, "identifier")
# A name's and an address's parts are indexed once, in the narrowest field that holds them:
# the name and address parameters read those fields too. The whole names are /v2's exact names
# ("first middle last", "first last", an organisation's legal and doing-business-as names).
_NAME_ALSO = (F.exactNames, F.familyNames, F.givenNames)
_ADDRESS_ALSO = (F.cities, F.states, F.postalCodes)
_NAME = Param("string", F.nameParts, "name", also=_NAME_ALSO)
_ADDRESS = Param("string", F.addressParts, "address", per_location=True, also=_ADDRESS_ALSO)
_CITY = Param("string", F.cities, "address.city", per_location=True)
_STATE = Param("string", F.states, "address.state", per_location=True)
_POSTAL = Param("string", F.postalCodes, "address.postalCode", per_location=True)
_NEAR = Param("special", None, "position", per_location=True)
_TEXT = Param("special", None, "(the /v2 search's reading of free text)")
# Answered from the plans (service.fhir.render.plans): a provider has none of these.
_PAYER = Param("reference", None, "ownedBy")
_NETWORK = Param("reference", None, "extension('network-reference').value")

_NO_ORGANIZATION = {
    "organization": absent("reference", "organization"),
    "organization.name": absent("string", "organization.name"),
    "organization.address": absent("string", "organization.address"),
    "organization.partof": absent("reference", "organization.partOf"),
    "organization.type": absent("token", "organization.type"),
}
_NO_SERVICE = {
    "service": absent("reference", "healthcareService"),
    "service.service-category": absent("token", "healthcareService.category"),
    "service.organization": absent("reference", "healthcareService.providedBy"),
    "service.location": absent("reference", "healthcareService.location"),
}
_NO_ENDPOINT = {
    "endpoint": absent("reference", "endpoint"),
    "endpoint.organization": absent("reference", "endpoint.managingOrganization"),
}

PARAMETERS: Final[dict[ResourceType, dict[str, Param]]] = {
    "Practitioner": {
        "_id": _ID,
        "_lastUpdated": _LAST_UPDATED,
        "identifier": _IDENTIFIER,
        "name": _NAME,
        "family": Param("string", F.familyNames, "name.family"),
        "given": Param("string", F.givenNames, "name.given"),
        TEXT_PARAMETER: _TEXT,
    },
    "PractitionerRole": {
        "_id": _ROLE_ID,
        "_lastUpdated": _LAST_UPDATED,
        "identifier": absent("token", "identifier"),  # a role has no identifier of its own
        "practitioner": Param("reference", F.npi, "practitioner"),
        "practitioner.name": _NAME,
        "location": Param("reference", F.locationIds, "location"),
        "location.address": _ADDRESS,
        "location.address-city": _CITY,
        "location.address-state": _STATE,
        "location.address-postalcode": _POSTAL,
        "specialty": Param("token", F.taxonomyCodes, "specialty"),
        "role": Param("token", F.roleCodes, "code"),
        "network": _NETWORK,
        "network.name": Param("string", None, "extension('network-reference').value.name"),
        "network.address": Param("string", None, "network.address"),
        "network.partof": Param("reference", None, "network.partOf"),
        "network.type": Param("token", None, "network.type"),
        "location.organization": absent("reference", "location.managingOrganization"),
        "location.type": absent("token", "location.type"),
        **_NO_ORGANIZATION,
        **_NO_SERVICE,
        **_NO_ENDPOINT,
        "near": _NEAR,
        TEXT_PARAMETER: _TEXT,
    },
    "Organization": {
        "_id": _ID,
        "_lastUpdated": _LAST_UPDATED,
        "identifier": _IDENTIFIER,
        "name": _NAME,
        "address": _ADDRESS,
        "type": Param("token", PROVIDER_TYPE, "type"),
        "partof": Param("reference", None, "partOf"),
        "partof.name": Param("string", None, "partOf.name"),
        "partof.address": Param("string", None, "partOf.address"),
        "partof.type": Param("token", None, "partOf.type"),
        "coverage-area": absent("reference", "extension('location-reference').value"),
        **_NO_ENDPOINT,
        TEXT_PARAMETER: _TEXT,
    },
    "Location": {
        "_id": Param("token", F.locationIds, "Resource.id", per_location=True),
        "_lastUpdated": _LAST_UPDATED,
        # A practice site is built from a provider's address: it has no identifier of its own;
        # a county (service.fhir.sources.locations) has its FIPS code.
        "identifier": Param("token", None, "identifier"),
        "address": _ADDRESS,
        "address-city": _CITY,
        "address-state": _STATE,
        "address-postalcode": _POSTAL,
        "organization": Param("reference", F.npi, "managingOrganization"),
        "organization.name": _NAME,
        "organization.address": Param(
            "string", F.addressParts, "managingOrganization.address", also=_ADDRESS_ALSO
        ),
        "organization.type": Param("token", PROVIDER_TYPE, "managingOrganization.type"),
        "organization.partof": absent("reference", "managingOrganization.partOf"),
        "partof": absent("reference", "partOf"),
        "partof.type": absent("token", "partOf.type"),
        "partof.address": absent("string", "partOf.address"),
        "partof.organization": absent("reference", "partOf.managingOrganization"),
        "type": absent("token", "type"),
        **_NO_ENDPOINT,
        "near": _NEAR,
    },
    "OrganizationAffiliation": {
        "_id": _ID,
        "_lastUpdated": _LAST_UPDATED,
        "participating-organization": Param("reference", F.npi, "participatingOrganization"),
        "participating-organization.name": _NAME,
        "participating-organization.address": Param(
            "string", F.addressParts, "participatingOrganization.address", also=_ADDRESS_ALSO
        ),
        "participating-organization.type": Param(
            "token", PROVIDER_TYPE, "participatingOrganization.type"
        ),
        "participating-organization.partof": absent(
            "reference", "participatingOrganization.partOf"
        ),
        "primary-organization": absent("reference", "organization"),
        "primary-organization.name": absent("string", "organization.name"),
        "primary-organization.address": absent("string", "organization.address"),
        "primary-organization.partof": absent("reference", "organization.partOf"),
        "primary-organization.type": absent("token", "organization.type"),
        "location.organization": Param("reference", F.npi, "location.managingOrganization"),
        "location.type": absent("token", "location.type"),
        "role": absent("token", "code"),
        **_NO_SERVICE,
        **_NO_ENDPOINT,
        "location": Param("reference", F.locationIds, "location"),
        "location.address": _ADDRESS,
        "location.address-city": _CITY,
        "location.address-state": _STATE,
        "location.address-postalcode": _POSTAL,
        "network": _NETWORK,
        "network.name": Param("string", None, "network.name"),
        "network.partof": Param("reference", None, "network.partOf"),
        "specialty": Param("token", F.taxonomyCodes, "specialty"),
    },
    "HealthcareService": {
        "_id": Param("token", TERMS, "Resource.id"),
        "_lastUpdated": _LAST_UPDATED,
        "identifier": Param("token", TERMS, "identifier"),
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
        "endpoint.organization": Param("reference", TERMS, "endpoint.managingOrganization"),
        "organization.type": Param("token", TERMS, "providedBy.type"),
        "organization.address": Param("string", TERMS, "providedBy.address"),
        "organization.partof": Param("reference", TERMS, "providedBy.partOf"),
        "location": Param("reference", TERMS, "location"),
        "location.organization": Param("reference", TERMS, "location.managingOrganization"),
        "location.type": Param("token", TERMS, "location.type"),
        "coverage-area": Param("reference", TERMS, "coverageArea"),
    },
    "Endpoint": {
        "_id": Param("token", TERMS, "Resource.id"),
        "_lastUpdated": _LAST_UPDATED,
        "identifier": Param("token", TERMS, "identifier"),
        "organization": Param("reference", TERMS, "managingOrganization"),
        "organization.name": Param("string", TERMS, "managingOrganization.name"),
        "organization.type": Param("token", TERMS, "managingOrganization.type"),
        "organization.address": Param("string", TERMS, "managingOrganization.address"),
        "organization.partof": Param("reference", TERMS, "managingOrganization.partOf"),
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
        "administered-by.partof": Param("reference", None, "administeredBy.partOf"),
        "owned-by.partof": Param("reference", None, "ownedBy.partOf"),
        "coverage-area": Param("reference", None, "coverageArea"),
        "coverage-area.address-state": Param("string", None, "coverageArea.address.state"),
        "plan-type": absent("token", "plan.type"),
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
    "primary-organization": "Organization",
    "service": "HealthcareService",
    "coverage-area": "Location",
}
# Result parameters: how many, which page, what else, how to answer.
CONTROL_PARAMETERS: Final = frozenset(
    {"_count", "_cursor", "_include", "_revinclude", "_format", "_total", "_summary", "_elements"}
)
