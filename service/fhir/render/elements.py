"""The FHIR data types of the directory's resources (pure): references, names, codings,
contact points, addresses, hours, accepting-new-patients and ``meta``, from the stored shapes."""

from __future__ import annotations

from functools import lru_cache
from typing import cast

import langcodes

from core.changes import CHANGED_AT
from core.documents import Json, Location, NewPatients, OpeningHours, Provider
from core.fhir_json import without_empty
from core.npi import provider_key
from core.plan_net_codes import (
    ACCEPTING_SYSTEM,
    LANGUAGE_SYSTEM,
    NEW_PATIENTS,
    NPI_SYSTEM,
    NUCC_SYSTEM,
    profile,
)
from core.provider_names import provider_name
from core.search_fields import provider_of
from service.fhir.models import Resource, ResourceType
from service.fhir.render.tags import quality_tags

IDENTIFIER_TYPES = "http://terminology.hl7.org/CodeSystem/v2-0203"
DATA_ABSENT = "http://hl7.org/fhir/StructureDefinition/data-absent-reason"
GENDERS = {"F": "female", "M": "male", "X": "other"}
_ACCEPTING: dict[NewPatients, tuple[str, str]] = {
    "accepting": ("newpt", "Accepting"),
    "existing_patients_only": ("existptonly", "Accepting existing patients"),
    "existing_patients_and_family": ("existptfam", "Accepting existing patients and families"),
    "not_accepting": ("nopt", "Not Accepting"),
}


def reference(kind: ResourceType, resource_id: str, display: str | None = None) -> Resource:
    found: Resource = {"reference": f"{kind}/{resource_id}"}
    if display:
        found["display"] = display
    return found


def key_of(provider: Provider) -> str:
    """The id of the provider's Practitioner, PractitionerRole, Organization or
    OrganizationAffiliation: its NPI, or its own id when it has no ten-digit one."""
    return provider_key(provider["npis"], provider["id"])


class ListedProvider(Provider):
    """A provider as a search document lists it, with when that document last changed in this
    directory (its ``changedAt``, core.changes): its resources' ``meta.lastUpdated``."""

    changedAt: str


def listed(source: Json) -> ListedProvider:
    """The provider of a search document's ``_source`` (read with ``CHANGED_AT``)."""
    return cast(ListedProvider, {**provider_of(source), CHANGED_AT: source[CHANGED_AT]})


def provider_meta(name: str, provider: ListedProvider, *more_tags: Resource) -> Resource:
    """``meta``; a ``tag`` per data-quality note of the provider (render.tags), then
    ``more_tags`` (a Location's confidence)."""
    meta: Resource = {"lastUpdated": provider[CHANGED_AT], "profile": [profile(name)]}
    tags = [*quality_tags(provider), *more_tags]
    if tags:
        meta["tag"] = tags
    return meta


def npi_identifier(provider: Provider) -> list[Resource]:
    kind = {"coding": [{"system": IDENTIFIER_TYPES, "code": "NPI"}]}
    return [
        {"use": "official", "type": kind, "system": NPI_SYSTEM, "value": npi}
        for npi in provider["npis"][:1]
    ]


def display_name(provider: Provider) -> str:
    return provider_name(provider) or key_of(provider)


def taxonomy(code: str, display: str | None) -> Resource:
    coding = without_empty({"system": NUCC_SYSTEM, "code": code, "display": display})
    return {"coding": [coding]}


@lru_cache(maxsize=512)
def language(name: str) -> Resource:
    try:
        found = langcodes.find(name)
    except LookupError:
        return {"text": name}
    coding = {"system": LANGUAGE_SYSTEM, "code": found.language, "display": name}
    return {"coding": [coding], "text": name}


def telecom(location: Location) -> list[Resource]:
    found = [{"system": "phone", "value": p, "use": "work"} for p in location["phoneNumbers"]]
    found += [{"system": "fax", "value": f, "use": "work"} for f in location["faxNumbers"]]
    if location["email"]:
        found.append({"system": "email", "value": location["email"], "use": "work"})
    if location["website"]:
        found.append({"system": "url", "value": location["website"], "use": "work"})
    return found


def address(location: Location) -> Resource:
    address = location["address"]
    lines = [line for line in (address["line1"], address["line2"]) if line]
    return without_empty(
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


def new_patients(value: NewPatients | None) -> list[Resource]:
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


def opening_hours(hours: OpeningHours) -> Resource:
    return without_empty(
        {
            "daysOfWeek": hours["daysOfWeek"],
            "allDay": hours["allDay"] or None,
            "openingTime": hours["opens"],
            "closingTime": hours["closes"],
        }
    )


def human_name(provider: Provider) -> Resource:
    name = without_empty(
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
