"""The CapabilityStatement (``GET /fhir/metadata``) and the SearchParameter of ``_text``, both
written from the parameter table (service.fhir.models), so they declare exactly what is served."""

from __future__ import annotations

from typing import Final

from core.confidence import SCORES
from core.plan_net_codes import PLAN_NET_IG, profile
from service.fhir.models import (
    DEFAULT_COUNT,
    FHIR_JSON,
    FHIR_VERSION,
    MAX_COUNT,
    RESOURCE_TYPES,
    TEXT_PARAMETER,
    Resource,
    ResourceType,
)
from service.fhir.render.tags import (
    CONFIDENCE_REASON_SYSTEM,
    CONFIDENCE_SYSTEM,
    DATA_QUALITY_SYSTEM,
)
from service.fhir.search.chain_table import MAX_CHAIN_TARGETS
from service.fhir.search.include_table import INCLUDES, REVINCLUDES
from service.fhir.search.parameters import PARAMETERS

TEXT_SEARCH_PARAMETER_ID: Final = "provider-directory-text"
PLAN_NET_GUIDE: Final = PLAN_NET_IG + "/ImplementationGuide/hl7.fhir.us.davinci-pdex-plan-net"
_STANDARD = "http://hl7.org/fhir/SearchParameter/"
_PLAN_NET_PARAMETERS = PLAN_NET_IG + "/SearchParameter/"
# Plan-Net defines these itself; the others are FHIR's own.
_PLAN_NET_DEFINED = {"network", "coverage-area", "via-intermediary", "new-patient"}
_PROFILES: Final[dict[ResourceType, tuple[str, ...]]] = {
    "Practitioner": ("Practitioner",),
    "PractitionerRole": ("PractitionerRole",),
    "Organization": ("Organization", "Network"),
    "Location": ("Location",),
    "InsurancePlan": ("InsurancePlan",),
    "OrganizationAffiliation": ("OrganizationAffiliation",),
    "HealthcareService": ("HealthcareService",),
    "Endpoint": ("Endpoint",),
}
# What a type's search answers from, where it is more than one store.
_SEARCH_DOCUMENTATION: Final[dict[ResourceType, str]] = {
    "Organization": "Provider organisations first, then the plans' payers and networks.",
    "Location": "Practice sites first, then the counties plans are sold in (physicalType jdn,"
    " id county-<FIPS>). A county matches _id, _lastUpdated, identifier (its FIPS code),"
    " address (its county name and state) and address-state; address-city,"
    " address-postalcode, organization, near and the parameters no Location has leave the"
    " counties out. _revinclude=InsurancePlan:coverage-area brings the plans sold in a county.",
}
_TEXT_DOCUMENTATION = (
    "Free text read as the /v2 search reads it: names, specialties and the words people use"
    " for them (kardiologist, heart doctor), conditions, misspellings; ranked by relevance,"
    " and by distance with near."
)

_TAGS_DOCUMENTATION = (
    f" meta.tag: {DATA_QUALITY_SYSTEM} (what a source published wrong, a ghost signal) on"
    " every resource built from a provider it flags; on a practice Location, its confidence:"
    f" {CONFIDENCE_SYSTEM} (its score, {SCORES[0]} to {SCORES[-1]}) and"
    f" {CONFIDENCE_REASON_SYSTEM} (each reason)."
)

_LAST_UPDATED_DOCUMENTATION = (
    "The instant, to the second, the resource last changed in this directory (added or changed"
    " by a load or an update: meta.lastUpdated), not when its source last changed it; a reload"
    " restamps every resource. Compared exactly: gt with the last instant seen gets what"
    " changed since."
)


def _definition(kind: ResourceType, name: str, base: str) -> str:
    if name == TEXT_PARAMETER:
        return f"{base}/SearchParameter/{TEXT_SEARCH_PARAMETER_ID}"
    if name in ("_id", "_lastUpdated"):
        return f"{_STANDARD}Resource-{name[1:].lower()}"
    owner = "Resource" if name.startswith("_") else kind
    if name in _PLAN_NET_DEFINED:
        return f"{_PLAN_NET_PARAMETERS}{kind.lower()}-{name}"
    return f"{_STANDARD}{owner}-{name}"


def _resource(kind: ResourceType, base: str) -> Resource:
    params = PARAMETERS[kind]
    chains: dict[str, list[str]] = {}
    for name in params:
        head, dot, tail = name.partition(".")
        if dot:
            chains.setdefault(head, []).append(tail)
    search_params = []
    for name, param in params.items():
        if "." in name:
            continue
        entry: Resource = {
            "name": name,
            "definition": _definition(kind, name, base),
            "type": param.type if param.type != "special" else "special",
        }
        if name in chains:
            entry["documentation"] = f"chains: {', '.join(name + '.' + c for c in chains[name])}"
        elif name == TEXT_PARAMETER:
            entry["documentation"] = _TEXT_DOCUMENTATION
        elif name == "_lastUpdated":
            entry["documentation"] = _LAST_UPDATED_DOCUMENTATION
        search_params.append(entry)
    resource: Resource = {
        "type": kind,
        "supportedProfile": [profile(name) for name in _PROFILES[kind]],
        "interaction": [{"code": "read"}, {"code": "search-type"}],
        "searchParam": search_params,
    }
    if kind in _SEARCH_DOCUMENTATION:
        resource["documentation"] = _SEARCH_DOCUMENTATION[kind]
    if INCLUDES[kind]:
        resource["searchInclude"] = list(INCLUDES[kind])
    if REVINCLUDES[kind]:
        resource["searchRevInclude"] = list(REVINCLUDES[kind])
    return resource


# The result parameters every search takes (FHIR R4 3.1.1.5.6, .5.7): declared once, for all.
RESULT_PARAMETERS: Final = (
    {
        "name": "_count",
        "type": "number",
        "documentation": f"Matches per page (default {DEFAULT_COUNT}, at most {MAX_COUNT});"
        " 0: the total and no entries.",
    },
    {
        "name": "_summary",
        "type": "token",
        "documentation": "count: the total and no entries (as _count=0); true: each resource"
        " reduced to its summary elements; text: text and the mandatory elements; data: all"
        " but text; false: whole. A reduced resource is tagged SUBSETTED. On reads too.",
    },
    {
        "name": "_elements",
        "type": "string",
        "documentation": "Top-level elements to keep, comma-separated (with id, meta and the"
        " mandatory ones; tagged SUBSETTED); matches only, included resources whole. On reads"
        " too. Not with _summary.",
    },
)
BULK_EXPORT_OPERATION = "http://hl7.org/fhir/uv/bulkdata/OperationDefinition/export"
BULK_PUBLISH_OPERATION = "http://hl7.org/fhir/uv/bulkdata/OperationDefinition/bulk-publish"


def capability_statement(base: str, software_version: str, date: str) -> Resource:
    return {
        "resourceType": "CapabilityStatement",
        "status": "active",
        "date": date,
        "kind": "instance",
        "software": {"name": "provider-directory", "version": software_version},
        "implementation": {"description": "Provider Directory: Plan-Net API", "url": base},
        "fhirVersion": FHIR_VERSION,
        "format": [FHIR_JSON, "json"],
        "implementationGuide": [
            f"{PLAN_NET_IG}/ImplementationGuide/hl7.fhir.us.davinci-pdex-plan-net"
        ],
        "rest": [
            {
                "mode": "server",
                "documentation": "Read-only. Anonymous reads allowed unless the operator turns"
                " them off; a bearer token is accepted as well. Unknown parameters follow"
                " Prefer: handling=strict|lenient (lenient by default). A chain on a"
                " HealthcareService or an Endpoint finds its target in every store it lives"
                " in (a provider organisation, a payer, a network, an endpoint); one matching"
                f" more than {MAX_CHAIN_TARGETS} targets, when the resources searched name more"
                f" than {MAX_CHAIN_TARGETS}, is refused (400): narrow it." + _TAGS_DOCUMENTATION,
                "resource": [_resource(kind, base) for kind in RESOURCE_TYPES],
                "searchParam": list(RESULT_PARAMETERS),
                "operation": [
                    {"name": "export", "definition": BULK_EXPORT_OPERATION},
                    {"name": "bulk-publish", "definition": BULK_PUBLISH_OPERATION},
                ],
            }
        ],
    }


def text_search_parameter(base: str) -> Resource:
    kinds = [kind for kind in RESOURCE_TYPES if TEXT_PARAMETER in PARAMETERS[kind]]
    return {
        "resourceType": "SearchParameter",
        "id": TEXT_SEARCH_PARAMETER_ID,
        "url": f"{base}/SearchParameter/{TEXT_SEARCH_PARAMETER_ID}",
        "name": "ProviderDirectoryText",
        "status": "active",
        "description": _TEXT_DOCUMENTATION,
        "code": TEXT_PARAMETER,
        "base": kinds,
        "type": "special",
    }
