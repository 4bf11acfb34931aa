"""A provider and its locations, as the directory stores them -> Plan-Net resources (pure).

Ids are stable across reindexes: a Practitioner, its PractitionerRole and a provider
Organization are known by the NPI, a Location by its location id (core.npi.location_id). An
individual has one PractitionerRole: the practitioner at every practice location the directory
knows, with every specialty.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import langcodes

from core.documents import Location, NewPatients, OpeningHours, Provider
from core.fhir_terms import last_updated
from core.plan_net_codes import (
    ACCEPTING_SYSTEM,
    LANGUAGE_SYSTEM,
    NETWORK_REFERENCE,
    NEW_PATIENTS,
    NPI_SYSTEM,
    NUCC_SYSTEM,
    ORG_TYPE_SYSTEM,
    PROVIDER_ROLE_SYSTEM,
    profile,
    provider_role,
)
from service.fhir.ids import network_id
from service.fhir.models import Resource, ResourceType

IDENTIFIER_TYPES = "http://terminology.hl7.org/CodeSystem/v2-0203"
DATA_ABSENT = "http://hl7.org/fhir/StructureDefinition/data-absent-reason"
_GENDERS = {"F": "female", "M": "male", "X": "other"}
_ACCEPTING: dict[NewPatients, tuple[str, str]] = {
    "accepting": ("newpt", "Accepting"),
    "existing_patients_only": ("existptonly", "Accepting existing patients"),
    "existing_patients_and_family": ("existptfam", "Accepting existing patients and families"),
    "not_accepting": ("nopt", "Not Accepting"),
}
PROVIDER_ORGANIZATION = ("prov", "Healthcare Provider")


def reference(kind: ResourceType, resource_id: str, display: str | None = None) -> Resource:
    found: Resource = {"reference": f"{kind}/{resource_id}"}
    if display:
        found["display"] = display
    return found


def _meta(name: str, provider: Provider) -> Resource:
    updated = last_updated(provider) or "1900-01-01"
    return {"lastUpdated": f"{updated}T00:00:00Z", "profile": [profile(name)]}


def _npi(provider: Provider) -> list[Resource]:
    kind = {"coding": [{"system": IDENTIFIER_TYPES, "code": "NPI"}]}
    return [{"use": "official", "type": kind, "system": NPI_SYSTEM, "value": provider["npis"][0]}]


def display_name(provider: Provider) -> str:
    if provider["entityType"] == "organization":
        return provider["organizationName"] or provider["doingBusinessAs"] or provider["npis"][0]
    parts = (provider["prefix"], provider["firstName"], provider["middleName"])
    person = " ".join(p for p in (*parts, provider["lastName"]) if p)
    return f"{person}, {provider['suffix']}" if provider["suffix"] else person


def _compact(resource: Resource) -> Resource:
    """Empty lists and absent values left out: FHIR has no empty elements."""
    return {k: v for k, v in resource.items() if v not in (None, [], {}, "")}


def _taxonomy(code: str, display: str | None) -> Resource:
    coding = _compact({"system": NUCC_SYSTEM, "code": code, "display": display})
    return {"coding": [coding]}


@lru_cache(maxsize=512)
def _language(name: str) -> Resource:
    try:
        found = langcodes.find(name)
    except LookupError:
        return {"text": name}
    coding = {"system": LANGUAGE_SYSTEM, "code": found.language, "display": name}
    return {"coding": [coding], "text": name}


def _telecom(location: Location) -> list[Resource]:
    found = [{"system": "phone", "value": p, "use": "work"} for p in location["phoneNumbers"]]
    found += [{"system": "fax", "value": f, "use": "work"} for f in location["faxNumbers"]]
    if location["email"]:
        found.append({"system": "email", "value": location["email"], "use": "work"})
    if location["website"]:
        found.append({"system": "url", "value": location["website"], "use": "work"})
    return found


def _address(location: Location) -> Resource:
    address = location["address"]
    lines = [line for line in (address["line1"], address["line2"]) if line]
    return _compact(
        {
            "use": "work",
            "type": "physical",
            "line": lines,
            "city": address["city"],
            "district": address["county"],
            "state": address["state"],
            "postalCode": address["zip"],
            "country": "US",
        }
    )


def _new_patients(value: NewPatients | None) -> list[Resource]:
    if value is None:
        return []
    code, display = _ACCEPTING[value]
    concept = {"coding": [{"system": ACCEPTING_SYSTEM, "code": code, "display": display}]}
    return [
        {
            "url": NEW_PATIENTS,
            "extension": [{"url": "acceptingPatients", "valueCodeableConcept": concept}],
        }
    ]


def _hours(hours: OpeningHours) -> Resource:
    return _compact(
        {
            "daysOfWeek": hours["daysOfWeek"],
            "allDay": hours["allDay"] or None,
            "openingTime": hours["opens"],
            "closingTime": hours["closes"],
        }
    )


def _human_name(provider: Provider) -> Resource:
    name = _compact(
        {
            "use": "official",
            "text": display_name(provider),
            "family": provider["lastName"],
            "given": [g for g in (provider["firstName"], provider["middleName"]) if g],
            "prefix": [provider["prefix"]] if provider["prefix"] else [],
            "suffix": [provider["suffix"]] if provider["suffix"] else [],
        }
    )
    if not provider["lastName"]:  # mandatory in Plan-Net; NPPES always has one, a payer may not
        name["_family"] = {"extension": [{"url": DATA_ABSENT, "valueCode": "unknown"}]}
    return name


def practitioner(provider: Provider) -> Resource:
    qualifications = [
        _compact(
            {
                "identifier": ([{"value": s["licenseNumber"]}] if s["licenseNumber"] else []),
                "code": _taxonomy(s["code"], s["displayName"]),
            }
        )
        for s in provider["specialties"]
    ]
    qualifications += [{"code": {"text": credential}} for credential in provider["credentials"]]
    return _compact(
        {
            "resourceType": "Practitioner",
            "id": provider["npis"][0],
            "meta": _meta("Practitioner", provider),
            "identifier": _npi(provider),
            "active": True,
            "name": [_human_name(provider)],
            "gender": _GENDERS.get(provider["gender"] or ""),
            "qualification": qualifications,
            "communication": [_language(language) for language in provider["languages"]],
        }
    )


def practitioner_role(
    provider: Provider, locations: Sequence[Location], networks: Sequence[str] = ()
) -> Resource:
    """``networks``: the plan years of the provider's in-network rows in force."""
    npi = provider["npis"][0]
    member_of = [
        {"url": NETWORK_REFERENCE, "valueReference": reference("Organization", network_id(key))}
        for key in networks
    ]
    roles = dict.fromkeys(provider_role(s["code"]) for s in provider["specialties"])
    accepting = dict.fromkeys(p["newPatients"] for p in locations if p["newPatients"])
    return _compact(
        {
            "resourceType": "PractitionerRole",
            "id": npi,
            "meta": _meta("PractitionerRole", provider),
            "extension": [
                *(e for value in accepting for e in _new_patients(value)),
                *member_of,
            ],
            "active": True,
            "practitioner": reference("Practitioner", npi, display_name(provider)),
            "code": [
                {"coding": [{"system": PROVIDER_ROLE_SYSTEM, "code": code, "display": shown}]}
                for code, shown in roles
            ],
            "specialty": [_taxonomy(s["code"], s["displayName"]) for s in provider["specialties"]],
            "location": [reference("Location", place["id"]) for place in locations],
            "telecom": [t for p in locations for t in _telecom(p) if t["system"] == "phone"][:5],
        }
    )


def organization_affiliation(
    provider: Provider, locations: Sequence[Location], networks: Sequence[str]
) -> Resource:
    """An organisation in the networks of its in-network rows in force, where it practises."""
    npi = provider["npis"][0]
    return _compact(
        {
            "resourceType": "OrganizationAffiliation",
            "id": npi,
            "meta": _meta("OrganizationAffiliation", provider),
            "active": True,
            "participatingOrganization": reference("Organization", npi, display_name(provider)),
            "network": [reference("Organization", network_id(key)) for key in networks],
            "specialty": [_taxonomy(s["code"], s["displayName"]) for s in provider["specialties"]],
            "location": [reference("Location", place["id"]) for place in locations],
            "telecom": [t for p in locations for t in _telecom(p) if t["system"] == "phone"][:5],
        }
    )


def organization(provider: Provider, locations: Sequence[Location]) -> Resource:
    code, shown = PROVIDER_ORGANIZATION
    return _compact(
        {
            "resourceType": "Organization",
            "id": provider["npis"][0],
            "meta": _meta("Organization", provider),
            "identifier": _npi(provider),
            "active": True,
            "type": [{"coding": [{"system": ORG_TYPE_SYSTEM, "code": code, "display": shown}]}],
            "name": display_name(provider),
            "alias": [provider["doingBusinessAs"]] if provider["doingBusinessAs"] else [],
            "telecom": [t for place in locations[:1] for t in _telecom(place)],
            "address": [_address(place) for place in locations]
            or [{"extension": [{"url": DATA_ABSENT, "valueCode": "unknown"}]}],
        }
    )


def location(provider: Provider, place: Location) -> Resource:
    address = place["address"]
    position = None
    if address["lat"] is not None and address["lng"] is not None:
        position = {"latitude": address["lat"], "longitude": address["lng"]}
    managed = provider["entityType"] == "organization"
    return _compact(
        {
            "resourceType": "Location",
            "id": place["id"],
            "meta": _meta("Location", provider),
            "extension": _new_patients(place["newPatients"]),
            "status": "active",
            "name": display_name(provider),
            "telecom": _telecom(place),
            "address": _address(place),
            "position": position,
            "managingOrganization": (
                reference("Organization", provider["npis"][0], display_name(provider))
                if managed
                else None
            ),
            "hoursOfOperation": [_hours(h) for h in place["hoursOfOperation"]],
        }
    )


def resource_of(
    kind: ResourceType,
    provider: Provider,
    locations: Sequence[Location],
    networks: Sequence[str] = (),
) -> Resource:
    """The Practitioner, PractitionerRole, Organization or OrganizationAffiliation of one
    provider; ``networks``: the plan years of its in-network rows in force."""
    if kind == "Practitioner":
        return practitioner(provider)
    if kind == "PractitionerRole":
        return practitioner_role(provider, locations, networks)
    if kind == "OrganizationAffiliation":
        return organization_affiliation(provider, locations, networks)
    return organization(provider, locations)


def serves(kind: ResourceType, provider: Provider, networks: Sequence[str]) -> bool:
    """Whether the provider is a resource of this type (Location: always, by its locations;
    an OrganizationAffiliation: an organisation in a network)."""
    if kind in ("Practitioner", "PractitionerRole"):
        return provider["entityType"] == "individual"
    if kind == "OrganizationAffiliation":
        return provider["entityType"] == "organization" and bool(networks)
    return kind == "Location" or provider["entityType"] == "organization"
