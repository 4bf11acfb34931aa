"""The index contract: alias names, mappings, settings and document ids (shapes: core.documents).

The indexer writes documents of these shapes into versioned indices behind these aliases; the
service reads them through the same aliases. Mappings use core analysis only (DESIGN 4), so they run
unchanged on the integ-test distribution, the official image and any managed cluster.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from core.changes import CHANGED_AT, CHANGED_AT_MAPPING, REMOVALS_MAPPING
from core.documents import Plan
from core.network import NETWORKS_FIELD, NETWORKS_MAPPING
from core.plan_offers import COUNTIES_FIELD, PREMIUM_FIELD, SPECIAL_NEEDS_FIELD, ZIPS_FIELD
from core.plans import plan_key

IndexKind = Literal["search", "providers", "coverage", "plans", "removals"]
INDEX_KINDS: tuple[IndexKind, ...] = ("search", "providers", "coverage", "plans", "removals")
# The layout of the documents: a version written with another one is never served or rolled
# back to (2: the lookup document holds its locations; search points are not nested; 3: the
# search document holds in-network periods, not plan years in force on the day of the load;
# 4: the lookup document holds its two answers serialised, with their ETags; 5: providers and
# locations say their sources, Plan-Net overlays and payers' plans; 6: the FHIR API's name,
# address, location id and last-updated fields; 7: plans' costs, star ratings and service areas;
# 8: the instant each FHIR resource last changed, and the removals index: core.changes).
SCHEMA = 8
DEFAULT_PREFIX = "provider-directory"
VERSION_FORMAT = "%Y%m%dt%H%M%S%f"  # when its load began (UTC): names sort by age


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

    def lock(self) -> str:
        """The one-document index that says which indexer job (load, update) owns the prefix."""
        return f"{self.prefix}-lock"

    def publication(self) -> str:
        """The one-document index of the last finished load or update (core.publication)."""
        return f"{self.prefix}-publication"


LOCK_ID = "lock"  # the id of the lock index's one document (its fields: indexer.lock.LockInfo)


def version_started(version: str) -> datetime:
    return datetime.strptime(version, VERSION_FORMAT).replace(tzinfo=UTC)


def loaded_on(index: str) -> str:
    """The day (ISO) the load that wrote this versioned index began."""
    return version_started(index.rsplit("-", 1)[-1]).date().isoformat()


def coverage_doc_id(contract_year: int, bid_id: str, npi: str, location_id: str | None) -> str:
    return f"{contract_year}:{bid_id}:{npi}:{location_id or '*'}"


def plan_doc_id(contract_year: int, key: str) -> str:
    """A plan's document id: its year and its key (core.plans.plan_key)."""
    return f"{contract_year}:{key}"


def plan_document_id(plan: Plan) -> str:
    return plan_doc_id(plan["contractYear"], plan_key(plan["bidId"], plan["payerPlanId"]))


# ---- mappings ----

_KEYWORD = {"type": "keyword"}
# Matched, never sorted or aggregated on: no doc values to build at load time.
_FILTER_KEYWORD = {"type": "keyword", "doc_values": False}
_TEXT = {"type": "text", "analyzer": "standard"}
_NAME_TEXT = {**_TEXT, "norms": False}
_STORED_ONLY = {"type": "object", "enabled": False}

MAPPINGS: dict[IndexKind, dict[str, Any]] = {
    # Read by id only (core.documents.LookupDoc): nothing in it is parsed or indexed.
    "providers": {"enabled": False},
    # Only what search filters, scores, sorts or aggregates on is indexed; the answer's provider
    # and locations are stored as they are.
    "search": {
        "dynamic": False,
        "properties": {
            "npi": _KEYWORD,  # the tie-break of every sort
            "entityType": _FILTER_KEYWORD,
            "gender": _KEYWORD,
            "taxonomyCodes": _FILTER_KEYWORD,
            "primaryTaxonomyCodes": _FILTER_KEYWORD,
            "specialtyNames": _KEYWORD,
            # Filtered case-insensitively; the facet counts the names as written ("display").
            "languages": {
                **_FILTER_KEYWORD,
                "normalizer": "lowercase_keyword",
                "copy_to": "languageText",
                "fields": {"display": _KEYWORD},
            },
            "languageText": _TEXT,
            "pcpEligible": {"type": "boolean", "doc_values": False},
            "sources": _FILTER_KEYWORD,
            # Nested: a plan year and its period must match in the same row (core.network).
            NETWORKS_FIELD: NETWORKS_MAPPING,
            # Text fields hold core.text.normalize()d text. A name's length says nothing about
            # how well it matches, so names carry no norms: same-name providers score alike
            # and distance orders them.
            "fullName": _NAME_TEXT,
            # Whole names as people type them: "first last", "first middle last", legal and
            # doing-business-as organisation names.
            "exactNames": _FILTER_KEYWORD,
            "names": {**_NAME_TEXT, "copy_to": "typoTolerant"},
            "organizations": {**_NAME_TEXT, "copy_to": "typoTolerant"},
            # One field for fuzzy matching: a fuzzy query costs per field, so names and
            # organisations are matched fuzzily here, once, and exactly in their own fields.
            "typoTolerant": {**_TEXT, "index_options": "docs", "norms": False},
            "specialtyText": _TEXT,
            "credentials": _TEXT,
            # A plain multi-valued geo_point, not nested locations: the radius filter, the
            # distance sort (mode min) and the distance facet need no per-location documents,
            # and the in-radius locations of a hit are picked from the stored ones.
            "points": {"type": "geo_point"},
            # FHIR string parameters: normalised terms (core.fhir_terms), matched as prefixes.
            "lastUpdated": {"type": "date", "format": "strict_date"},
            CHANGED_AT: CHANGED_AT_MAPPING,
            "roleCodes": _FILTER_KEYWORD,
            "familyNames": _FILTER_KEYWORD,
            "givenNames": _FILTER_KEYWORD,
            "nameParts": _FILTER_KEYWORD,
            "locationIds": _FILTER_KEYWORD,
            "cities": _FILTER_KEYWORD,
            "states": _FILTER_KEYWORD,
            "postalCodes": _FILTER_KEYWORD,
            "addressParts": _FILTER_KEYWORD,
            "locations": _STORED_ONLY,
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
    # Plans, and what payers' directories publish besides providers (core.documents
    # .PublishedDoc: HealthcareServices, Endpoints), each replaced with its directory's plans.
    "plans": {
        "dynamic": False,
        # A plan's ZIPs (thousands for a state-wide plan) are matched, never read back: kept
        # out of the stored source, every read of a plan parses less (zipsDigest says they
        # changed).
        "_source": {"excludes": [ZIPS_FIELD]},
        "properties": {
            "contractYear": {"type": "integer"},
            "bidId": _KEYWORD,
            "contractId": _KEYWORD,
            "states": _KEYWORD,
            # A Plan Finder plan's area and what the plan search filters on (core.plan_offers).
            ZIPS_FIELD: _FILTER_KEYWORD,
            COUNTIES_FIELD: _FILTER_KEYWORD,
            PREMIUM_FIELD: {"type": "float"},
            SPECIAL_NEEDS_FIELD: {"type": "boolean"},
            "starRating": {"properties": {"overall": {"type": "float"}}},
            "source": _KEYWORD,
            "resourceType": _KEYWORD,
            "id": _KEYWORD,
            "lastUpdated": {"type": "date", "format": "strict_date"},
            CHANGED_AT: CHANGED_AT_MAPPING,
            "terms": _FILTER_KEYWORD,
            "resource": _STORED_ONLY,
        },
    },
    # The FHIR resources updates removed since the load (core.changes.Removal).
    "removals": REMOVALS_MAPPING,
}


# The lookup index is its stored answers (serialised JSON inside JSON) read one by id: the
# stronger codec halves its bytes (134k: 66 MB -> 35 MB) for one small decompression per read.
_CODECS: dict[IndexKind, str] = {"providers": "best_compression"}


def index_settings(kind: IndexKind, shards: int = 1, replicas: int = 0) -> dict[str, Any]:
    codec = {"codec": _CODECS[kind]} if kind in _CODECS else {}
    return {
        "number_of_shards": shards,
        "number_of_replicas": replicas,
        **codec,
        "analysis": {
            "normalizer": {"lowercase_keyword": {"type": "custom", "filter": ["lowercase"]}}
        },
    }
