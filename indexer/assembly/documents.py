"""Source records -> the documents of the index contract (pure functions, no I/O).

Documents are written as annotated dict literals, not ``TypedDict(...)`` calls: the same checked
shape, at half the cost, on a path that runs for every one of millions of NPPES rows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from typing import cast, get_args

from orjson import dumps

from core.confidence import Ages, score_all
from core.documents import (
    CoverageDoc,
    Gender,
    GroupAffiliation,
    HospitalAffiliation,
    Location,
    LookupDoc,
    Provider,
    SearchDoc,
    Specialty,
)
from core.fhir_terms import indexed, name_terms
from core.lookup_answers import lookup_document
from core.network import PeriodKey, period_key, periods_of
from core.npi import provider_id, provider_key
from core.primary_care import is_pcp_eligible
from core.search_fields import (
    derived_fields,
    locations_source,
    provider_source,
)
from indexer.assembly import plan_net, plan_net_stored
from indexer.assembly.locations import all_locations
from indexer.assembly.plan_net import Overlay
from indexer.sources.dac import DacRow
from indexer.sources.nppes import NppesRecord
from indexer.sources.nucc import TaxonomyEntry

_CREDENTIAL_SPLIT = re.compile(r"[,;/]+")
_GENDERS: dict[str, Gender] = {code: code for code in get_args(Gender)}


@dataclass(slots=True)
class ProviderDocuments:
    provider: Provider
    locations: list[Location]
    search: SearchDoc
    coverage: list[CoverageDoc] = field(default_factory=list)  # what a Plan-Net overlay says
    overlays: str | None = None  # indexer.assembly.plan_net_stored.stored_overlays
    base: str | None = None  # the documents before the overlay (None: it alone lists them)

    def lookup(self) -> LookupDoc:
        doc = lookup_document(self.provider, self.locations)
        if self.overlays is not None:
            doc["planNet"], doc["base"] = self.overlays, self.base
        return doc


@dataclass(frozen=True, slots=True)
class Extras:
    """What other sources know about one NPI (Doctors & Clinicians rows, plan networks)."""

    dac_rows: Sequence[DacRow] = ()
    languages: tuple[str, ...] = ()
    networks: Sequence[PeriodKey | None] = ()  # core.network.period_key of its coverage rows
    plan_net: tuple[Overlay, ...] = ()  # what payers' Plan-Net directories say of it


NO_EXTRAS = Extras()


@lru_cache(maxsize=8192)  # a few thousand distinct spellings cover nearly every row
def _credentials(text: str) -> tuple[str, ...]:
    found: list[str] = []
    for part in _CREDENTIAL_SPLIT.split(text.upper().replace(".", "")):
        credential = " ".join(part.split())
        if credential and credential not in found:
            found.append(credential)
    return tuple(found)


def normalize_credentials(text: str) -> list[str]:
    """ "M.D., Ph.D." -> ["MD", "PHD"]: periods dropped, upper case, split on , ; /."""
    return list(_credentials(text))


def _iso(value: date | None) -> str | None:
    return value.isoformat() if value else None


def _specialties(record: NppesRecord, nucc: Mapping[str, TaxonomyEntry]) -> list[Specialty]:
    """One entry per taxonomy code: NPPES repeats a code once per licence state, and the
    provider has the specialty once (primary if any of its rows says so; first licence)."""
    specialties: dict[str, Specialty] = {}
    for taxonomy in record.taxonomies:
        known = specialties.get(taxonomy.code)
        if known is not None:
            known["primary"] = known["primary"] or taxonomy.primary
            continue
        entry = nucc.get(taxonomy.code)
        specialties[taxonomy.code] = {
            "code": taxonomy.code,
            "displayName": entry.display_name if entry else None,
            "grouping": entry.grouping if entry else None,
            "classification": entry.classification if entry else None,
            "specialization": entry.specialization if entry else None,
            "primary": taxonomy.primary,
            "licenseNumber": taxonomy.license_number,
            "licenseState": taxonomy.license_state,
        }
    return list(specialties.values())


def _affiliations(
    rows: Sequence[DacRow],
) -> tuple[list[GroupAffiliation], list[HospitalAffiliation]]:
    groups: dict[tuple[str, str | None], None] = {}
    hospitals: dict[str, str | None] = {}
    for row in rows:
        if row.group is not None:
            groups[row.group] = None
        for ccn, name in row.hospitals:
            hospitals.setdefault(ccn, name)
    return (
        [GroupAffiliation(name=name, pacId=pac_id) for name, pac_id in groups],
        [HospitalAffiliation(ccn=ccn, name=name) for ccn, name in hospitals.items()],
    )


def provider_document(
    record: NppesRecord, nucc: Mapping[str, TaxonomyEntry], extras: Extras = NO_EXTRAS
) -> Provider:
    individual = record.entity_type == "1"
    specialties = _specialties(record, nucc)
    groups, hospitals = _affiliations(extras.dac_rows) if extras.dac_rows else ([], [])
    provider: Provider = {
        "id": provider_id(record.npi),
        "npis": [record.npi],
        "entityType": "individual" if individual else "organization",
        "organizationName": record.organization_name or None,
        "doingBusinessAs": record.doing_business_as or None,
        "firstName": record.first_name or None,
        "lastName": record.last_name or None,
        "middleName": record.middle_name or None,
        "prefix": record.prefix or None,
        "suffix": record.suffix or None,
        "gender": _GENDERS.get(record.sex.upper()) if individual else None,
        "credentials": list(_credentials(record.credential)),
        "languages": list(extras.languages),
        "groupAffiliations": groups,
        "hospitalAffiliations": hospitals,
        "specialties": specialties,
        "pcpEligible": is_pcp_eligible([s["code"] for s in specialties]),
        "enumerationDate": _iso(record.enumeration_date),
        "lastUpdated": _iso(record.last_update),
        "sources": ["nppes", "dac"] if extras.dac_rows else ["nppes"],
        "languageSources": ["dac"] if extras.languages else [],
    }
    return provider


def search_document(
    provider: Provider,
    locations: list[Location],
    other_names: tuple[str, ...] = (),
    networks: Sequence[PeriodKey | None] = (),
) -> SearchDoc:
    """``networks``: the plan years and periods of the provider's coverage rows."""
    derived = derived_fields(provider, locations)
    periods = periods_of(networks)
    stored, kept = provider_source(provider), locations_source(provider, locations)
    # A cast: mypy cannot see that the ** item leaves out only the stamp (changedAt).
    return cast(
        SearchDoc,
        {
            "npi": provider_key(provider["npis"], provider["id"]),
            "networks": periods,
            "names": indexed([provider["firstName"], provider["lastName"], *other_names]),
            # The whole names are indexed once, in exactNames, which FHIR's name reads too.
            "nameParts": name_terms(provider, other_names, derived["exactNames"]),
            **derived,
            "locations": kept,
            "provider": stored,
        },
    )


def build_documents(
    record: NppesRecord, nucc: Mapping[str, TaxonomyEntry], ages: Ages, extras: Extras = NO_EXTRAS
) -> ProviderDocuments:
    """``ages``: the day the documents are made on, which their confidence is scored for."""
    provider = provider_document(record, nucc, extras)
    locations = all_locations(record, extras.dac_rows, provider["pcpEligible"], ages.day)
    other_names = record.other_organization_names + record.other_person_names
    if not extras.plan_net:
        score_all(provider, locations, ages)
        search = search_document(provider, locations, other_names, extras.networks)
        return ProviderDocuments(provider, locations, search)
    base = stored_base(provider, locations, other_names)
    return overlaid(provider, locations, other_names, extras.networks, extras.plan_net, base, ages)


def listed_documents(
    overlays: Sequence[Overlay],
    nucc: Mapping[str, TaxonomyEntry],
    networks: Sequence[PeriodKey | None],
    ages: Ages,
    deactivated: bool,
) -> ProviderDocuments:
    """The documents of a provider only directories list (the first of ``overlays`` gives its
    record), flagged when NPPES deactivated its NPI (``deactivated``)."""
    first = overlays[0]
    provider = plan_net.listed_provider(first.provider, nucc, first.source, deactivated)
    return overlaid(provider, [], (), networks, overlays, None, ages)


def stored_base(provider: Provider, locations: list[Location], other_names: Sequence[str]) -> str:
    """The documents before a Plan-Net overlay, as the lookup document keeps them."""
    fields = {"provider": provider, "locations": locations, "otherNames": list(other_names)}
    return dumps(fields).decode()


def overlaid(
    provider: Provider,
    locations: list[Location],
    other_names: Sequence[str],
    networks: Sequence[PeriodKey | None],
    overlays: Sequence[Overlay],
    base: str | None,
    ages: Ages,
) -> ProviderDocuments:
    """The documents of a provider Plan-Net directories add to (or alone list: ``base``
    None), its in-network periods those of ``networks`` and of the directories' rows, its
    locations scored on the day of ``ages``."""
    coverage: list[CoverageDoc] = []
    for overlay in sorted(overlays, key=lambda o: o.source):
        provider, locations, rows = plan_net.apply(
            provider, locations, overlay, other_names, ages.day
        )
        coverage += rows
    score_all(provider, locations, ages)
    keys = [*networks, *(period_key(row) for row in coverage)]
    search = search_document(provider, locations, tuple(other_names), keys)
    stored = plan_net_stored.stored_overlays(overlays)
    return ProviderDocuments(provider, locations, search, coverage, stored, base)
