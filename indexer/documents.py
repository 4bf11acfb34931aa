"""Source records -> the documents of the index contract (pure functions, no I/O)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from core.geo import lookup_zip
from core.index_contract import (
    Address,
    LocationDoc,
    ProviderDoc,
    SearchDoc,
    SearchLocation,
    Specialty,
)
from core.npi import location_id, provider_id
from core.primary_care import is_pcp_eligible
from indexer.sources.nppes import NppesRecord
from indexer.sources.nucc import TaxonomyEntry

_CREDENTIAL_SPLIT = re.compile(r"[,;/]+")
_GENDERS = {"F": "F", "M": "M", "X": "X"}


@dataclass(frozen=True, slots=True)
class ProviderDocuments:
    provider: ProviderDoc
    locations: list[LocationDoc]
    search: SearchDoc


def normalize_credentials(text: str) -> list[str]:
    """ "M.D., Ph.D." -> ["MD", "PHD"]: periods dropped, upper case, split on , ; /."""
    found: list[str] = []
    for part in _CREDENTIAL_SPLIT.split(text.upper().replace(".", "")):
        credential = " ".join(part.split())
        if credential and credential not in found:
            found.append(credential)
    return found


def format_zip(postal_code: str) -> str | None:
    """US ZIP as "12345" or "12345-6789"; a foreign postal code unchanged."""
    digits = postal_code.replace("-", "")
    if len(digits) == 9 and digits.isdigit():
        return f"{digits[:5]}-{digits[5:]}"
    return postal_code or None


def _iso(value: date | None) -> str | None:
    return value.isoformat() if value else None


def _specialties(record: NppesRecord, nucc: Mapping[str, TaxonomyEntry]) -> list[Specialty]:
    specialties: list[Specialty] = []
    for taxonomy in record.taxonomies:
        entry = nucc.get(taxonomy.code)
        specialties.append(
            Specialty(
                code=taxonomy.code,
                displayName=entry.display_name if entry else None,
                grouping=entry.grouping if entry else None,
                classification=entry.classification if entry else None,
                specialization=entry.specialization if entry else None,
                primary=taxonomy.primary,
                licenseNumber=taxonomy.license_number,
                licenseState=taxonomy.license_state,
            )
        )
    return specialties


def provider_document(record: NppesRecord, nucc: Mapping[str, TaxonomyEntry]) -> ProviderDoc:
    individual = record.entity_type == "1"
    specialties = _specialties(record, nucc)
    return ProviderDoc(
        id=provider_id(record.npi),
        npis=[record.npi],
        entityType="individual" if individual else "organization",
        organizationName=record.organization_name or None,
        doingBusinessAs=record.doing_business_as or None,
        firstName=record.first_name or None,
        lastName=record.last_name or None,
        middleName=record.middle_name or None,
        prefix=record.prefix or None,
        suffix=record.suffix or None,
        gender=_GENDERS.get(record.sex.upper()) if individual else None,  # type: ignore[typeddict-item]
        credentials=normalize_credentials(record.credential),
        languages=[],
        groupAffiliations=[],
        hospitalAffiliations=[],
        specialties=specialties,
        pcpEligible=is_pcp_eligible([s["code"] for s in specialties]),
        enumerationDate=_iso(record.enumeration_date),
        lastUpdated=_iso(record.last_update),
    )


def practice_location(record: NppesRecord, pcp_eligible: bool) -> LocationDoc:
    """The NPPES practice address, geocoded from its ZIP centroid when it is a US ZIP."""
    us = record.country in ("", "US")
    place = lookup_zip(record.postal_code) if us else None
    key = "|".join((record.line1, record.line2, record.city, record.state, record.postal_code[:5]))
    return LocationDoc(
        id=location_id(record.npi, key.upper()),
        npi=record.npi,
        address=Address(
            line1=record.line1 or None,
            line2=record.line2 or None,
            city=record.city or None,
            state=record.state or None,
            zip=format_zip(record.postal_code),
            county=place.county if place else None,
            lat=place.lat if place else None,
            lng=place.lng if place else None,
        ),
        phoneNumbers=[record.phone] if record.phone else [],
        faxNumbers=[record.fax] if record.fax else [],
        website=None,
        email=None,
        groupAffiliations=[],
        hospitalAffiliations=[],
        pcpEligible=pcp_eligible,
        source="nppes",
        geocodePrecision="zip5" if place else None,
    )


def full_name(provider: ProviderDoc) -> str:
    if provider["entityType"] == "organization":
        return provider["organizationName"] or provider["doingBusinessAs"] or ""
    parts = (provider["firstName"], provider["middleName"], provider["lastName"])
    return " ".join(p for p in parts if p)


def _unique(values: list[str | None]) -> list[str]:
    return list(dict.fromkeys(v for v in values if v))


def search_document(
    provider: ProviderDoc, locations: list[LocationDoc], other_names: tuple[str, ...] = ()
) -> SearchDoc:
    search_locations: list[SearchLocation] = []
    for location in locations:
        entry = SearchLocation(location=location)
        lat, lng = location["address"]["lat"], location["address"]["lng"]
        if lat is not None and lng is not None:
            entry["point"] = {"lat": lat, "lon": lng}
        search_locations.append(entry)
    specialties = provider["specialties"]
    return SearchDoc(
        npi=provider["npis"][0],
        entityType=provider["entityType"],
        gender=provider["gender"],
        taxonomyCodes=[s["code"] for s in specialties],
        specialtyNames=_unique([s["displayName"] for s in specialties]),
        languages=provider["languages"],
        pcpEligible=provider["pcpEligible"],
        inNetwork=[],
        fullName=full_name(provider),
        names=_unique([provider["firstName"], provider["lastName"], *other_names]),
        organizations=_unique(
            [
                provider["organizationName"],
                provider["doingBusinessAs"],
                *(g["name"] for g in provider["groupAffiliations"]),
                *(h["name"] for h in provider["hospitalAffiliations"]),
            ]
        ),
        specialtyText=_unique(
            [
                text
                for s in specialties
                for text in (s["displayName"], s["classification"], s["specialization"])
            ]
        ),
        credentials=provider["credentials"],
        locations=search_locations,
        provider=provider,
    )


def build_documents(record: NppesRecord, nucc: Mapping[str, TaxonomyEntry]) -> ProviderDocuments:
    provider = provider_document(record, nucc)
    locations = [practice_location(record, provider["pcpEligible"])]
    other_names = record.other_organization_names + record.other_person_names
    return ProviderDocuments(provider, locations, search_document(provider, locations, other_names))
