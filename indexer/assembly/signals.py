"""The ghost signals a payer's listing raises against NPPES (pure; codes in core.quality): what
the directory publishes of an NPI compared with what NPPES holds for it."""

from __future__ import annotations

from collections.abc import Sequence

from core.addresses import address_key
from core.documents import DataQualityNote, Provider
from core.name_match import same_organization, same_person
from core.npi import is_valid_npi
from core.quality import MANY_LOCATIONS, QualityCode
from indexer.sources.plan_net_providers import PlanNetProvider
from indexer.sources.plan_net_records import Person


def published_name(person: Person) -> str:
    if not person.individual:
        return person.organization_name or ""
    return " ".join(part for part in (person.first, person.middle, person.last) if part)


def name_differs(provider: Provider, person: Person, other_names: Sequence[str]) -> bool:
    """The directory's name for the NPI is not NPPES's (core.name_match: as people compare)."""
    if provider["entityType"] == "organization" or not person.individual:
        known = (provider["organizationName"], provider["doingBusinessAs"], *other_names)
        return not same_organization(person.organization_name, known)
    return not same_person(
        person.first,
        person.last,
        provider["firstName"],
        provider["middleName"],
        provider["lastName"],
        other_names,
    )


def practice_addresses(listed: PlanNetProvider) -> int:
    """The distinct practice addresses (core.addresses) the directory lists it at."""
    return len({address_key(site.line1, site.zip) for site in listed.sites.values()})


def _note(code: QualityCode, source: str, value: str | None) -> DataQualityNote:
    return {"code": code, "source": source, "value": value}


def listing_notes(
    provider: Provider, listed: PlanNetProvider, source: str, other_names: Sequence[str]
) -> list[DataQualityNote]:
    """What a directory's listing of a provider NPPES holds says against it."""
    notes: list[DataQualityNote] = []
    if "nppes" in provider["sources"] and name_differs(provider, listed.person, other_names):
        notes.append(_note("name_differs_from_nppes", source, published_name(listed.person)))
    if listed.person.individual:
        count = practice_addresses(listed)
        if count > MANY_LOCATIONS:
            notes.append(_note("many_locations", source, str(count)))
    return notes


def unknown_npi_note(person: Person, source: str, deactivated: bool) -> DataQualityNote | None:
    """A provider only the directory lists: NPPES deactivated its NPI, or does not hold it (an
    NPI that cannot have been issued has its own note, core.npi.NpiIssue)."""
    if deactivated:
        return _note("npi_deactivated", source, person.npi)
    if person.issue is None and is_valid_npi(person.npi):
        return _note("npi_not_in_nppes", source, person.npi)
    return None


def with_notes(provider: Provider, notes: Sequence[DataQualityNote]) -> Provider:
    """The provider with ``notes`` it does not already carry."""
    known = provider.get("dataQuality", [])
    added = [note for note in notes if note not in known]
    if not added:
        return provider
    return {**provider, "dataQuality": [*known, *added]}
