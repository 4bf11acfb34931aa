"""The index contract: alias names, mappings, settings and document shapes.

The indexer writes documents of these shapes into versioned indices behind these aliases; the
service reads them through the same aliases. Mappings use core analysis only (DESIGN 4), so they run
unchanged on the integ-test distribution, the official image and any managed cluster.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict

IndexKind = Literal["search", "providers", "locations", "coverage", "plans"]
INDEX_KINDS: tuple[IndexKind, ...] = ("search", "providers", "locations", "coverage", "plans")
DEFAULT_PREFIX = "provider-directory"


@dataclass(frozen=True)
class IndexNames:
    """Alias and versioned index names under one prefix (tests use a random prefix each)."""

    prefix: str = DEFAULT_PREFIX

    def alias(self, kind: IndexKind) -> str:
        return f"{self.prefix}-{kind}"

    def versioned(self, kind: IndexKind, version: str) -> str:
        return f"{self.prefix}-{kind}-{version}"

    def pattern(self, kind: IndexKind) -> str:
        return f"{self.prefix}-{kind}-*"

    def all_aliases(self) -> list[str]:
        return [self.alias(kind) for kind in INDEX_KINDS]


# ---- document shapes (the API's Provider and Location are these, as stored) ----


class Specialty(TypedDict):
    code: str
    displayName: str | None
    grouping: str | None
    classification: str | None
    specialization: str | None
    primary: bool
    licenseNumber: str | None
    licenseState: str | None


class GroupAffiliation(TypedDict):
    name: str
    pacId: str | None


class HospitalAffiliation(TypedDict):
    ccn: str
    name: str | None


class ProviderDoc(TypedDict):
    id: str
    npis: list[str]
    entityType: Literal["individual", "organization"]
    organizationName: str | None
    doingBusinessAs: str | None
    firstName: str | None
    lastName: str | None
    middleName: str | None
    prefix: str | None
    suffix: str | None
    gender: Literal["F", "M", "X"] | None
    credentials: list[str]
    languages: list[str]
    groupAffiliations: list[GroupAffiliation]
    hospitalAffiliations: list[HospitalAffiliation]
    specialties: list[Specialty]
    pcpEligible: bool
    enumerationDate: str | None
    lastUpdated: str | None


class Address(TypedDict):
    line1: str | None
    line2: str | None
    city: str | None
    state: str | None
    zip: str | None
    county: str | None
    lat: float | None
    lng: float | None


class LocationDoc(TypedDict):
    id: str
    npi: str
    address: Address
    phoneNumbers: list[str]
    faxNumbers: list[str]
    website: str | None
    email: str | None
    groupAffiliations: list[GroupAffiliation]
    hospitalAffiliations: list[HospitalAffiliation]
    pcpEligible: bool
    source: str  # "nppes" (practice address) or "dac" (a Doctors & Clinicians address)
    geocodePrecision: Literal["zip5"] | None


class SearchLocation(TypedDict):
    point: NotRequired[dict[str, float]]
    location: LocationDoc


class SearchDoc(TypedDict):
    """One per provider: text and filter fields, nested geo locations, the Provider to return."""

    npi: str
    entityType: str
    gender: str | None
    taxonomyCodes: list[str]
    specialtyNames: list[str]  # NUCC display names, for facets
    languages: list[str]
    pcpEligible: bool
    inNetwork: list[str]  # network_key of in-network coverage rows not terminated by the load
    fullName: str
    names: list[str]
    organizations: list[str]
    specialtyText: list[str]
    credentials: list[str]
    locations: list[SearchLocation]
    provider: ProviderDoc


NetworkStatus = Literal["in_network", "out_of_network"]


class CoverageDoc(TypedDict):
    """One row of an operator's coverage file. ``_id``: see ``coverage_doc_id``."""

    contractYear: int
    bidId: str  # canonical, see core.plans.canonical_bid_id
    npi: str
    locationId: str | None  # None: the whole provider, every location
    networkStatus: NetworkStatus
    acceptingNewPatients: bool | None
    effectiveDate: str | None  # ISO date; None: since ever
    terminationDate: str | None  # ISO date, exclusive; None: open-ended
    source: str


class PlanDoc(TypedDict):
    """A Medicare Advantage plan (one bid id) in one contract year. ``_id``: ``plan_doc_id``."""

    contractYear: int
    bidId: str
    contractId: str
    planId: str
    segmentId: str
    planName: str | None
    organization: str | None
    planType: str | None
    snpType: str | None
    states: list[str]  # USPS codes ("NH"), from the plan file's state names


def coverage_doc_id(contract_year: int, bid_id: str, npi: str, location_id: str | None) -> str:
    return f"{contract_year}:{bid_id}:{npi}:{location_id or '*'}"


def plan_doc_id(contract_year: int, bid_id: str) -> str:
    return f"{contract_year}:{bid_id}"


def network_key(contract_year: int, bid_id: str) -> str:
    """The value of ``SearchDoc.inNetwork`` for one plan year."""
    return f"{contract_year}:{bid_id}"


# ---- mappings ----

_KEYWORD = {"type": "keyword"}
_TEXT = {"type": "text", "analyzer": "standard"}
_STORED_ONLY = {"type": "object", "enabled": False}

MAPPINGS: dict[IndexKind, dict[str, Any]] = {
    "providers": {
        "dynamic": False,
        "properties": {"id": _KEYWORD, "npis": _KEYWORD, "lastUpdated": _KEYWORD},
    },
    "locations": {
        "dynamic": False,
        "properties": {
            "id": _KEYWORD,
            "npi": _KEYWORD,
            "source": _KEYWORD,
            "address": {"properties": {"zip": _KEYWORD, "state": _KEYWORD}},
        },
    },
    "search": {
        "dynamic": False,
        "properties": {
            "npi": _KEYWORD,
            "entityType": _KEYWORD,
            "gender": _KEYWORD,
            "taxonomyCodes": _KEYWORD,
            "specialtyNames": _KEYWORD,
            "languages": {**_KEYWORD, "normalizer": "lowercase_keyword", "copy_to": "languageText"},
            "languageText": _TEXT,
            "pcpEligible": {"type": "boolean"},
            "inNetwork": _KEYWORD,
            "fullName": {
                **_TEXT,
                "fields": {"exact": {**_KEYWORD, "normalizer": "lowercase_keyword"}},
            },
            "names": {**_TEXT, "copy_to": "typoTolerant"},
            "organizations": {**_TEXT, "copy_to": "typoTolerant"},
            # One field for fuzzy matching: a fuzzy query costs per field, so names and
            # organisations are matched fuzzily here, once, and exactly in their own fields.
            "typoTolerant": {**_TEXT, "index_options": "docs", "norms": False},
            "specialtyText": {**_TEXT, "fields": {"raw": _KEYWORD}},
            "credentials": {**_TEXT, "fields": {"raw": _KEYWORD}},
            "locations": {
                "type": "nested",
                "properties": {"point": {"type": "geo_point"}, "location": _STORED_ONLY},
            },
            "provider": _STORED_ONLY,
        },
    },
    "coverage": {
        "dynamic": False,
        "properties": {
            "contractYear": {"type": "integer"},
            "bidId": _KEYWORD,
            "npi": _KEYWORD,
            "locationId": _KEYWORD,
            "networkStatus": _KEYWORD,
            "acceptingNewPatients": {"type": "boolean"},
            "effectiveDate": {"type": "date"},
            "terminationDate": {"type": "date"},
            "source": _KEYWORD,
        },
    },
    "plans": {
        "dynamic": False,
        "properties": {
            "contractYear": {"type": "integer"},
            "bidId": _KEYWORD,
            "contractId": _KEYWORD,
            "states": _KEYWORD,
        },
    },
}


def index_settings(shards: int = 1, replicas: int = 0) -> dict[str, Any]:
    return {
        "number_of_shards": shards,
        "number_of_replicas": replicas,
        "analysis": {
            "normalizer": {"lowercase_keyword": {"type": "custom", "filter": ["lowercase"]}}
        },
    }
