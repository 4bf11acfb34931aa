"""The index contract: alias names, mappings, settings and document ids (shapes: core.documents).

The indexer writes documents of these shapes into versioned indices behind these aliases; the
service reads them through the same aliases. Mappings use core analysis only (DESIGN 4), so they run
unchanged on the integ-test distribution, the official image and any managed cluster.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from core.changes import CHANGED_AT, CHANGED_AT_MAPPING, REMOVALS_MAPPING, Removal
from core.documents import CoverageDoc, Plan, PublishedDoc, SearchDoc
from core.index_fields import FieldNames, undeclared
from core.network import NETWORKS_FIELD, NETWORKS_MAPPING
from core.plan_offers import (
    COUNTIES_FIELD,
    NETWORK_ROWS_FIELD,
    PREMIUM_FIELD,
    SPECIAL_NEEDS_FIELD,
    ZIPS_FIELD,
    OfferedPlanDoc,
)
from core.plans import plan_key

IndexKind = Literal["search", "providers", "coverage", "plans", "removals"]
INDEX_KINDS: tuple[IndexKind, ...] = ("search", "providers", "coverage", "plans", "removals")
# The layout of the documents: a version written with another one is never served or rolled
# back to (2: the lookup document holds its locations; search points are not nested; 3: the
# search document holds in-network periods, not plan years in force on the day of the load;
# 4: the lookup document holds its two answers serialised, with their ETags; 5: providers and
# locations say their sources, Plan-Net overlays and payers' plans; 6: the FHIR API's name,
# address, location id and last-updated fields; 7: plans' costs, star ratings and service areas;
# 8: the instant each FHIR resource last changed, and the removals index: core.changes;
# 9: the last-updated days go, FHIR reads changedAt; 10: the FHIR terms made from the provider
# and locations indexed, not stored: core.fhir_terms; 11: a plan's ZIPs kept in its source,
# a directory's participation rows keyed by the directory too; 12: a name's and an address's
# parts indexed once, in the narrowest field that holds them; 13: the lookup answers' ETags
# made when they are read, not stored; 14: the text fields made from the provider and locations
# in the case the source gives them, lower-cased by the mapping: core.text.indexed_form; 15: the
# search document's provider without the id its NPI gives: core.search_fields.provider_source;
# 16: nameParts without the whole names exactNames holds, which FHIR's name parameter reads).
SCHEMA = 16
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


def coverage_doc_id(
    contract_year: int,
    bid_id: str,
    npi: str,
    location_id: str | None,
    directory: str | None = None,
) -> str:
    """A participation row's id: its plan, NPI and location; a payer directory's rows carry the
    directory's source too, so a row the operator's coverage file and a directory both name is
    kept twice, once per publisher, not overwritten."""
    row = f"{contract_year}:{bid_id}:{npi}:{location_id or '*'}"
    return row if directory is None else f"{directory}|{row}"


def plan_doc_id(contract_year: int, key: str) -> str:
    """A plan's document id: its year and its key (core.plans.plan_key)."""
    return f"{contract_year}:{key}"


def plan_document_id(plan: Plan) -> str:
    return plan_doc_id(plan["contractYear"], plan_key(plan["bidId"], plan["payerPlanId"]))


# ---- mappings ----

_KEYWORD = {"type": "keyword"}
# Matched, never sorted or aggregated on: no doc values to build at load time.
_FILTER_KEYWORD = {"type": "keyword", "doc_values": False}
# Words as core.text.indexed_form writes them: lower-cased here, so the service's normalised
# (lower-case) values match them.
_WORDS_KEYWORD = {**_FILTER_KEYWORD, "normalizer": "lowercase_keyword"}
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
        # No field is left out of the stored source, though the fields made from the provider
        # and locations are never read back (core.search_fields): a filtered source costs
        # Elasticsearch a map round trip and a whole _recovery_source copy of every document,
        # +23 µs of its CPU per provider at 1M and a wait before the force merge to drop the
        # copy, for 300 bytes per provider less (issue 35, BENCHMARKS.md).
        "properties": {
            # The tie-break of every sort (doc values), not indexed: a query for a provider
            # asks for its document id, the same key (``ids``). One distinct term per
            # document cost Elasticsearch ~6 µs per provider at load (issue 35).
            "npi": {"type": "keyword", "index": False},
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
            "exactNames": _WORDS_KEYWORD,
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
            CHANGED_AT: CHANGED_AT_MAPPING,
            "roleCodes": _FILTER_KEYWORD,
            "familyNames": _WORDS_KEYWORD,
            "givenNames": _WORDS_KEYWORD,
            "nameParts": _WORDS_KEYWORD,
            "locationIds": _FILTER_KEYWORD,
            "cities": _WORDS_KEYWORD,
            "states": _WORDS_KEYWORD,
            "postalCodes": _FILTER_KEYWORD,
            "addressParts": _WORDS_KEYWORD,
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
        # A plan's ZIPs (thousands for a state-wide plan) are kept in the stored source, as
        # every field is: a partial update (the network flag) rewrites a document from it.
        # Reads leave them out (PLAN_READ_SOURCE); zipsDigest says they changed.
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


# ---- each index's fields, from its documents' types, checked against its mapping ----

SEARCH_FIELDS = FieldNames("search", SearchDoc, index_only=("languageText", "typoTolerant"))
PLAN_FIELDS = FieldNames("plans", Plan, OfferedPlanDoc, PublishedDoc)
COVERAGE_FIELDS = FieldNames("coverage", CoverageDoc)
REMOVAL_FIELDS = FieldNames("removals", Removal)
# Kept in a plan's stored source for its answer, never searched (the mapping is dynamic: false).
PLAN_STORED_ONLY = (
    *("planId", "segmentId", "payerPlanId", "planName", "organization", "planType", "snpType"),
    *("monthlyPremium", "healthDeductible", "drugDeductible", "maxOutOfPocket"),
    *("serviceArea", "zipsDigest", NETWORK_ROWS_FIELD),
)
COVERAGE_STORED_ONLY = ("effectiveDate", "terminationDate", "acceptingNewPatients")
_DECLARED: dict[IndexKind, tuple[FieldNames, tuple[str, ...]]] = {
    "search": (SEARCH_FIELDS, ()),
    "plans": (PLAN_FIELDS, PLAN_STORED_ONLY),
    "coverage": (COVERAGE_FIELDS, COVERAGE_STORED_ONLY),
    "removals": (REMOVAL_FIELDS, ()),
}


def declaration_problems() -> list[str]:
    """Every index's mapping against its documents' fields (core.index_fields.undeclared)."""
    return [
        f"{kind}: {problem}"
        for kind, (fields, stored_only) in _DECLARED.items()
        for problem in undeclared(MAPPINGS[kind], fields, stored_only)
    ]


if declaration_problems():  # checked once, at import: a wrong declaration is a defect
    raise TypeError("; ".join(declaration_problems()))


# How a plan is read whole: without its ZIPs, which only the area filter matches.
PLAN_READ_SOURCE: dict[str, list[str]] = {"excludes": [ZIPS_FIELD]}


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
