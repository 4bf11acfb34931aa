"""What a payer's Plan-Net directory adds to a provider's documents (pure): its languages, the
sites where it practises (the payer's exact point, hours, whether it takes new patients), and its
network memberships as coverage rows of the directory's plans; and the whole record of a
provider only the directory lists. Every value it adds names its source."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, cast

from core.confidence import LISTED_WITHOUT_PHONE, add_evidence, mark
from core.documents import CoverageDoc, Location, NewPatients, Plan, Provider, Specialty
from core.index_contract import coverage_doc_id
from core.npi import KEYED_BY_ID, provider_id
from core.plans import plan_key, plan_key_of
from core.primary_care import is_pcp_eligible
from indexer.assembly.locations import listed_location, match_keys
from indexer.assembly.signals import listing_notes, unknown_npi_note, with_notes
from indexer.sources.nucc import TaxonomyEntry
from indexer.sources.plan_net import PlanNetDirectory
from indexer.sources.plan_net_providers import Membership, PlanNetProvider
from indexer.sources.plan_net_records import Hours, Site
from indexer.sources.plans import PLAN_YEAR


@dataclass(frozen=True, slots=True)
class PlanLink:
    """A plan a network belongs to, keyed as the indices key plans (core.plans.plan_key)."""

    contract_year: int
    key: str
    start: str | None
    end: str | None


@dataclass(frozen=True, slots=True)
class Overlay:
    """What one directory says of one NPI, and the plans each of its networks belongs to."""

    source: str
    provider: PlanNetProvider
    links: Mapping[str, Sequence[PlanLink]]


def _year(start: str | None) -> int:
    # A plan without a period is taken for the plan year the Plan Finder files describe.
    return int(start[:4]) if start else PLAN_YEAR


def plan_documents(directory: PlanNetDirectory) -> list[Plan]:
    plans: dict[str, Plan] = {}
    for plan in directory.plans.values():
        contract, number, segment = plan.bid_id.split("_") if plan.bid_id else (None,) * 3
        document: Plan = {
            "contractYear": _year(plan.start),
            "bidId": plan.bid_id,
            "contractId": contract,
            "planId": number,
            "segmentId": segment,
            "payerPlanId": None if plan.bid_id else plan.payer_plan_id,
            "source": directory.source,
            "planName": plan.name,
            "organization": plan.owner,
            "planType": None,
            "snpType": None,
            "states": [],
        }
        plans.setdefault(plan_key_of(document), document)
    return list(plans.values())


def plan_links(directory: PlanNetDirectory) -> dict[str, list[PlanLink]]:
    """Network reference -> the plans that use it."""
    links: dict[str, list[PlanLink]] = {}
    for plan in directory.plans.values():
        key = plan_key(plan.bid_id, None if plan.bid_id else plan.payer_plan_id)
        link = PlanLink(_year(plan.start), key, plan.start, plan.end)
        for network in plan.networks:
            links.setdefault(network, []).append(link)
    return links


def _later(a: str | None, b: str | None) -> str | None:
    return max(filter(None, (a, b)), default=None)


def _day_after(end: str | None) -> str | None:
    """FHIR period ends are inclusive, a coverage row's termination date is not."""
    return (date.fromisoformat(end[:10]) + timedelta(days=1)).isoformat() if end else None


def _coverage(
    npi: str, membership: Membership, link: PlanLink, location_id: str | None, source: str
) -> CoverageDoc:
    ends = [e for e in (membership.end, link.end) if e]
    accepting = membership.new_patients
    return {
        "contractYear": link.contract_year,
        "bidId": link.key,
        "npi": npi,
        "locationId": location_id,
        "networkStatus": "in_network",
        "acceptingNewPatients": None if accepting is None else accepting == "accepting",
        "effectiveDate": (_later(membership.start, link.start) or "")[:10] or None,
        "terminationDate": _day_after(min(ends)) if ends else None,
        "source": source,
    }


def _hours(hours: Sequence[Hours]) -> list[Any]:
    return [
        {"daysOfWeek": list(h.days), "allDay": h.all_day, "opens": h.opens, "closes": h.closes}
        for h in hours
    ]


def _place(location: Location, site: Site, said: str | None, source: str, as_of: str) -> None:
    """The directory's facts about an address the provider has (``as_of``: the day it gives
    for the provider, when the Location gives none)."""
    if source not in location["sources"]:
        location["sources"] = [*location["sources"], source]
    add_evidence(location, source, site.updated or as_of)
    if not site.phones:
        mark(location, LISTED_WITHOUT_PHONE)
    if site.lat is not None and site.lng is not None:
        location["address"] = {**location["address"], "lat": site.lat, "lng": site.lng}
        location["geocodePrecision"] = "exact"
    accepting = said or site.new_patients
    if accepting is not None:
        location["newPatients"] = cast(NewPatients, accepting)
    if site.hours and not location["hoursOfOperation"]:
        location["hoursOfOperation"] = _hours(site.hours)
    location["phoneNumbers"] = list(dict.fromkeys([*location["phoneNumbers"], *site.phones]))
    location["faxNumbers"] = list(dict.fromkeys([*location["faxNumbers"], *site.faxes]))


def apply(
    provider: Provider,
    locations: list[Location],
    overlay: Overlay,
    other_names: Sequence[str],
    loaded: str,
) -> tuple[Provider, list[Location], list[CoverageDoc]]:
    """The provider and its locations with the directory's facts added, what its listing says
    against NPPES's record (``other_names``: the record's other names), and its coverage rows
    (``loaded``: the day of the load, the evidence's date when the directory gives none)."""
    listed, source = overlay.provider, overlay.source
    npi = listed.person.npi  # the key: the NPPES row's NPI, when one is joined
    spoken = listed.person.languages
    as_of = listed.person.updated or loaded
    provider = {
        **with_notes(provider, listing_notes(provider, listed, source, other_names)),
        "languages": list(dict.fromkeys([*provider["languages"], *spoken])),
        "languageSources": list(dict.fromkeys([*provider["languageSources"], source]))
        if spoken
        else provider["languageSources"],
        "sources": list(dict.fromkeys([*provider["sources"], source])),
    }
    # Copies: the caller's locations stay as they were.
    located: list[Location] = [cast(Location, {**location}) for location in locations]
    by_key = {key: location for location in located for key in match_keys(*_fields_of(location))}
    site_ids: dict[str, str] = {}
    for ref, site in listed.sites.items():
        fields = (site.line1, site.line2, site.city, site.state, site.zip)
        keys = match_keys(*fields)
        found = next((by_key[key] for key in keys if key in by_key), None)
        if found is None:
            found = listed_location(
                npi, fields, provider["pcpEligible"], source, site.updated or as_of
            )
            located.append(found)
            by_key.update(dict.fromkeys(keys, found))
        _place(found, site, listed.new_patients.get(ref), source, as_of)
        site_ids[ref] = found["id"]
    rows: dict[str, CoverageDoc] = {}
    for membership in listed.memberships:
        location_id = site_ids.get(membership.site) if membership.site else None
        for link in overlay.links.get(membership.network, ()):
            row = _coverage(npi, membership, link, location_id, source)
            row_id = coverage_doc_id(link.contract_year, link.key, npi, location_id, source)
            rows.setdefault(row_id, row)
    return provider, located, list(rows.values())


def _fields_of(location: Location) -> tuple[str, str, str, str, str]:
    address = location["address"]
    return (
        address["line1"] or "",
        address["line2"] or "",
        address["city"] or "",
        address["state"] or "",
        (address["zip"] or "").replace("-", ""),
    )


def listed_provider(
    listed: PlanNetProvider, nucc: Mapping[str, TaxonomyEntry], source: str, deactivated: bool
) -> Provider:
    """The record of a provider the directory lists and the NPPES file does not, its NPI as
    published (a ``dataQuality`` note says what is wrong with it, or that NPPES deactivated it
    (``deactivated``) or does not hold it)."""
    person = listed.person
    taxonomies = list(dict.fromkeys([*person.taxonomies, *listed.taxonomies]))
    specialties: list[Specialty] = []
    for number, (code, display) in enumerate(taxonomies):
        entry = nucc.get(code)
        specialties.append(
            {
                "code": code,
                "displayName": entry.display_name if entry else display,
                "grouping": entry.grouping if entry else None,
                "classification": entry.classification if entry else None,
                "specialization": entry.specialization if entry else None,
                "primary": number == 0,
                "licenseNumber": None,
                "licenseState": None,
            }
        )
    keyed_by_id = person.issue in KEYED_BY_ID
    provider: Provider = {
        "id": person.npi if keyed_by_id else provider_id(person.npi),
        "npis": person.npis,
        "entityType": "individual" if person.individual else "organization",
        "organizationName": person.organization_name,
        "doingBusinessAs": None,
        "firstName": person.first,
        "lastName": person.last,
        "middleName": person.middle,
        "prefix": person.prefix,
        "suffix": person.suffix,
        "gender": cast(Any, person.gender),
        "credentials": [],
        "languages": [],
        "groupAffiliations": [],
        "hospitalAffiliations": [],
        "specialties": specialties,
        "pcpEligible": is_pcp_eligible([s["code"] for s in specialties]),
        "enumerationDate": None,
        "lastUpdated": person.updated,
        "sources": [],
        "languageSources": [],
    }
    if person.issue is not None:
        published = person.published_npi if keyed_by_id else person.npi
        provider["dataQuality"] = [{"code": person.issue, "source": source, "value": published}]
    unknown = unknown_npi_note(person, source, deactivated)
    return with_notes(provider, [unknown]) if unknown else provider
