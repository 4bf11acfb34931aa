"""The index contract: alias names, each index's declaration, settings and document ids.

The indexer writes documents of these shapes (core.documents) into versioned indices behind these
aliases; the service reads them through the same aliases. Each index is declared once, by its
documents' types: how a field is indexed is in its type (core.index_fields), and the mappings and
the field names queries use (``SEARCH_FIELDS.npi``) are read off them. Mappings use core analysis
only (DESIGN 4), so they run unchanged on the integ-test distribution, the official image and any
managed cluster.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final, Literal

from core.change_log import ChangeDoc, DigestPartDoc
from core.documents import (
    CoverageDoc,
    LookupDoc,
    Plan,
    SearchCopies,
    SearchDoc,
)
from core.index_fields import FieldNames
from core.plan_offers import OfferedPlanDoc, PlanRows
from core.published_documents import PublishedDoc, Removal
from core.scorecards import DirectoryDoc
from core.watches import AttemptDoc, WatchDoc

IndexKind = Literal["search", "providers", "coverage", "plans", "removals", "directories"]
INDEX_KINDS: tuple[IndexKind, ...] = (
    "search", "providers", "coverage", "plans", "removals", "directories",
)  # fmt: skip
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
# 16: nameParts without the whole names exactNames holds, which FHIR's name parameter reads;
# 17: each location's confidence and the points at or above each score: core.confidence;
# 18: the directories index, a scorecard per payer directory: core.scorecards; 19: a search
# document's location without the confidence NPPES alone gives it: core.search_fields; 20: the
# search document's listing digest, which a full load and a rollback diff: indexer.change_diff;
# 21: the listing digests kept beside the version, not in its search documents:
# indexer.digest_store).
SCHEMA = 21
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

    def changes(self) -> str:
        """The change feed (core.change_log): not versioned, it outlives every load."""
        return f"{self.prefix}-changes"

    def digests(self) -> str:
        """Each version's listing digests as its load wrote them (indexer.digest_store)."""
        return f"{self.prefix}-digests"

    def watches(self) -> str:
        """Watches on the change feed (core.watches): not versioned either."""
        return f"{self.prefix}-watches"

    def deliveries(self) -> str:
        """Each webhook delivery attempt (core.watches)."""
        return f"{self.prefix}-deliveries"


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


# ---- each index's declaration: its documents' types (core.index_fields) ----

SEARCH_FIELDS = FieldNames("search", SearchDoc, index_only=SearchCopies)
# Plans, and what payers' directories publish besides providers (HealthcareServices, Endpoints:
# core.published_documents.PublishedDoc), each replaced with its directory's plans.
PLAN_FIELDS = FieldNames("plans", Plan, OfferedPlanDoc, PlanRows, PublishedDoc)
COVERAGE_FIELDS = FieldNames("coverage", CoverageDoc)
# The FHIR resources updates removed since the load (core.changes).
REMOVAL_FIELDS = FieldNames("removals", Removal)
# Read by id only (core.documents.LookupDoc): nothing in it is parsed or indexed.
LOOKUP_FIELDS = FieldNames("providers", LookupDoc, indexed=False)
# A scorecard per loaded payer directory (core.scorecards), listed by name.
DIRECTORY_FIELDS = FieldNames("directories", DirectoryDoc)
# The change feed (core.change_log), outside the versions: ``IndexNames.changes``.
CHANGE_FIELDS = FieldNames("changes", ChangeDoc)
# Each version's listing digests, outside the versions too: ``IndexNames.digests``.
DIGEST_FIELDS = FieldNames("digests", DigestPartDoc)
# Watches and their delivery attempts (core.watches): ``IndexNames.watches``/``deliveries``.
WATCH_FIELDS = FieldNames("watches", WatchDoc)
ATTEMPT_FIELDS = FieldNames("deliveries", AttemptDoc)
NETWORK_FIELDS = SEARCH_FIELDS.inside(SEARCH_FIELDS.networks)  # networks.key, networks.period
STAR_FIELDS = PLAN_FIELDS.inside(PLAN_FIELDS.starRating)  # starRating.overall
DECLARED: dict[IndexKind, FieldNames] = {
    "providers": LOOKUP_FIELDS,
    "search": SEARCH_FIELDS,
    "coverage": COVERAGE_FIELDS,
    "plans": PLAN_FIELDS,
    "removals": REMOVAL_FIELDS,
    "directories": DIRECTORY_FIELDS,
}
MAPPINGS: dict[IndexKind, dict[str, Any]] = {
    kind: fields.mapping() for kind, fields in DECLARED.items()
}

# The lookup index is its stored answers (serialised JSON inside JSON) read one by id: the
# stronger codec halves its bytes (134k: 66 MB -> 35 MB) for one small decompression per read.
_CODECS: dict[IndexKind, str] = {"providers": "best_compression"}


# How a plan is read whole: without its ZIPs, which only the area filter matches.
PLAN_READ_SOURCE: dict[str, list[str]] = {"excludes": [PLAN_FIELDS.zips]}


# The indices outside a version (lock, change feed, digests, watches, deliveries): small, one
# shard, and a replica wherever a second node can hold one, so they outlive a node.
UNVERSIONED_SETTINGS: Final[dict[str, Any]] = {"number_of_shards": 1, "auto_expand_replicas": "0-1"}


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
