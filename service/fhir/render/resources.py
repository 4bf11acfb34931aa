"""A provider and its locations, as the directory stores them -> Plan-Net resources (pure).

Ids are stable across reindexes: a Practitioner, a provider Organization and its
OrganizationAffiliation are known by the NPI (or, for a provider a payer lists without a
ten-digit one, by its own id: core.npi.provider_key), a Location by its location id
(core.npi.location_id), a PractitionerRole by the provider and its network
(core.network.role_id). An individual has a PractitionerRole per network it is in (the
practitioner at every practice location the directory knows), or one for no network. A
specialty is served only where the guide's binding allows its NUCC code
(core.plan_net_codes.individual_specialty / any_specialty); every taxonomy stays in
Practitioner.qualification (an extensible binding) and PractitionerRole.code. A provider a payer
published without an NPI is identified by its key under the directory's own system (Plan-Net
requires a Practitioner's identifier).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.documents import Location
from core.fhir_json import without_empty
from core.network import role_id
from core.plan_net_codes import (
    NETWORK_REFERENCE,
    ORG_TYPE_SYSTEM,
    PROVIDER_KEY_SYSTEM,
    PROVIDER_ROLE_SYSTEM,
    any_specialty,
    individual_specialty,
    provider_role,
)
from core.plan_resources import network_id
from service.fhir.models import PROVIDER_ORGANIZATION, Resource
from service.fhir.render.elements import (
    DATA_ABSENT,
    GENDERS,
    ListedProvider,
    address,
    display_name,
    human_name,
    key_of,
    language,
    new_patients,
    npi_identifier,
    opening_hours,
    provider_meta,
    reference,
    taxonomy,
    telecom,
)
from service.fhir.render.hits import Hit
from service.fhir.render.tags import confidence_tags


def identifiers(provider: ListedProvider) -> list[Resource]:
    """The NPI as published; without one, the provider's key."""
    key = {"use": "secondary", "system": PROVIDER_KEY_SYSTEM, "value": key_of(provider)}
    return npi_identifier(provider) or [key]


def practitioner(provider: ListedProvider) -> Resource:
    qualifications = [
        without_empty(
            {
                "identifier": ([{"value": s["licenseNumber"]}] if s["licenseNumber"] else []),
                "code": taxonomy(s["code"], s["displayName"]),
            }
        )
        for s in provider["specialties"]
    ]
    qualifications += [{"code": {"text": credential}} for credential in provider["credentials"]]
    return without_empty(
        {
            "resourceType": "Practitioner",
            "id": key_of(provider),
            "meta": provider_meta("Practitioner", provider),
            "identifier": identifiers(provider),
            "active": True,
            "name": [human_name(provider)],
            "gender": GENDERS.get(provider["gender"] or ""),
            "qualification": qualifications,
            "communication": [language(spoken) for spoken in provider["languages"]],
        }
    )


def practitioner_roles(
    provider: ListedProvider, locations: Sequence[Location], networks: Sequence[str] = ()
) -> list[Resource]:
    """The provider's roles: one per network (``networks``: the plan years of its in-network
    rows in force), each with that one ``network-reference`` (Plan-Net allows one); one with
    none for a provider in no network."""
    keys: Sequence[str | None] = networks or [None]
    return [_role(provider, locations, key) for key in keys]


def _role(provider: ListedProvider, locations: Sequence[Location], network: str | None) -> Resource:
    npi = key_of(provider)
    member_of = (
        [
            {
                "url": NETWORK_REFERENCE,
                "valueReference": reference("Organization", network_id(network)),
            }
        ]
        if network is not None
        else []
    )
    roles = dict.fromkeys(provider_role(s["code"]) for s in provider["specialties"])
    accepting = dict.fromkeys(p["newPatients"] for p in locations if p["newPatients"])
    return without_empty(
        {
            "resourceType": "PractitionerRole",
            "id": role_id(npi, network),
            "meta": provider_meta("PractitionerRole", provider),
            "extension": [
                *(e for value in accepting for e in new_patients(value)),
                *member_of,
            ],
            "active": True,
            "practitioner": reference("Practitioner", npi, display_name(provider)),
            "code": [
                {"coding": [{"system": PROVIDER_ROLE_SYSTEM, "code": code, "display": shown}]}
                for code, shown in roles
            ],
            "specialty": [
                taxonomy(s["code"], s["displayName"])
                for s in provider["specialties"]
                if individual_specialty(s["code"])
            ],
            "location": [reference("Location", place["id"]) for place in locations],
            "telecom": [t for p in locations for t in telecom(p) if t["system"] == "phone"][:5],
        }
    )


def organization_affiliation(
    provider: ListedProvider, locations: Sequence[Location], networks: Sequence[str]
) -> Resource:
    """An organisation in the networks of its in-network rows in force, where it practises."""
    npi = key_of(provider)
    return without_empty(
        {
            "resourceType": "OrganizationAffiliation",
            "id": npi,
            "meta": provider_meta("OrganizationAffiliation", provider),
            "active": True,
            "participatingOrganization": reference("Organization", npi, display_name(provider)),
            "network": [reference("Organization", network_id(key)) for key in networks],
            "specialty": [
                taxonomy(s["code"], s["displayName"])
                for s in provider["specialties"]
                if any_specialty(s["code"])
            ],
            "location": [reference("Location", place["id"]) for place in locations],
            "telecom": [t for p in locations for t in telecom(p) if t["system"] == "phone"][:5],
        }
    )


def organization(provider: ListedProvider, locations: Sequence[Location]) -> Resource:
    code, shown = PROVIDER_ORGANIZATION
    return without_empty(
        {
            "resourceType": "Organization",
            "id": key_of(provider),
            "meta": provider_meta("Organization", provider),
            "identifier": identifiers(provider),
            "active": True,
            "type": [{"coding": [{"system": ORG_TYPE_SYSTEM, "code": code, "display": shown}]}],
            "name": display_name(provider),
            "alias": [provider["doingBusinessAs"]] if provider["doingBusinessAs"] else [],
            "telecom": [t for place in locations[:1] for t in telecom(place)],
            "address": [address(place) for place in locations]
            or [{"extension": [{"url": DATA_ABSENT, "valueCode": "unknown"}]}],
        }
    )


def location(provider: ListedProvider, place: Location) -> Resource:
    point = place["address"]
    position = None
    if point["lat"] is not None and point["lng"] is not None:
        position = {"latitude": point["lat"], "longitude": point["lng"]}
    managed = provider["entityType"] == "organization"
    return without_empty(
        {
            "resourceType": "Location",
            "id": place["id"],
            "meta": provider_meta("Location", provider, *confidence_tags(place["confidence"])),
            "extension": new_patients(place["newPatients"]),
            "status": "active",
            "name": display_name(provider),
            "telecom": telecom(place),
            "address": address(place),
            "position": position,
            "managingOrganization": (
                reference("Organization", key_of(provider), display_name(provider))
                if managed
                else None
            ),
            "hoursOfOperation": [opening_hours(h) for h in place["hoursOfOperation"]],
        }
    )


@dataclass(frozen=True)
class ProviderResources:
    """How a type's resources are built from one provider's hit (``of``), and whether the
    provider is one of them at all (``serves``)."""

    of: Callable[[Hit], list[Resource]]
    serves: Callable[[Hit], bool]


def _individual(hit: Hit) -> bool:
    return hit.provider["entityType"] == "individual"


def _organisation(hit: Hit) -> bool:
    return hit.provider["entityType"] == "organization"


def _in_a_network(hit: Hit) -> bool:
    return _organisation(hit) and bool(hit.networks)


PRACTITIONERS = ProviderResources(lambda hit: [practitioner(hit.provider)], _individual)
PRACTITIONER_ROLES = ProviderResources(
    lambda hit: practitioner_roles(hit.provider, hit.locations, hit.networks), _individual
)
PROVIDER_ORGANIZATIONS = ProviderResources(
    lambda hit: [organization(hit.provider, hit.locations)], _organisation
)
AFFILIATIONS = ProviderResources(
    lambda hit: [organization_affiliation(hit.provider, hit.locations, hit.networks)],
    _in_a_network,
)
# Every provider practises somewhere: each of its locations is a Location.
PRACTICE_SITES = ProviderResources(
    lambda hit: [location(hit.provider, place) for place in hit.locations], lambda hit: True
)
