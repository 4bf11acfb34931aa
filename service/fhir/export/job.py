"""Bulk Data ``$export`` (HL7 Bulk Data Access IG 2.0), the pure part: what a kick-off
(service.fhir.export.request) records (the job: service.fhir.export.models.ExportJob), its
manifest, and the query of one output file's page.

An export is a snapshot: an Elasticsearch point in time (PIT) opened at kick-off on the
aliases' current indices, one per alias read. Each output file is one slice of one type's query
over that PIT, streamed page by page, so any process answers any job and memory stays flat.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime
from typing import Any, Final, cast

from core.changes import instant
from core.documents import Json
from core.index_contract import PLAN_FIELDS, REMOVAL_FIELDS, SEARCH_FIELDS, IndexKind
from service.fhir.export.models import ExportJob
from service.fhir.export.request import PROVIDER_TYPES
from service.fhir.models import PUBLISHED_TYPES, ResourceType, Search
from service.fhir.search.published_query import PUBLISHED_SOURCE
from service.fhir.search.query import build_query
from service.search_kit.limits import RESOURCE_SOURCE

DELETED: Final = "deleted"  # the manifest's list of removals, and their file's name
ERRORS: Final = "error"  # the manifest's list of messages (lenient handling), and their file's

# Built from the plans (payers and networks, InsurancePlans, the counties plans are sold in):
# all in one more file of the type, when there are any.
PLAN_BUILT_TYPES: Final[tuple[ResourceType, ...]] = ("Organization", "InsurancePlan", "Location")
JOB_LIFETIME_SECONDS: Final = 3_600


# The index kind a type's hit files read: the search documents, or what payers publish (in the
# plans index); None for a type with plan-built files only.
HIT_FILES: Final[dict[ResourceType, IndexKind | None]] = {
    **dict.fromkeys(PROVIDER_TYPES, "search"),
    **dict.fromkeys(PUBLISHED_TYPES, "plans"),
    "InsurancePlan": None,
}


def alias_of(kind: ResourceType) -> IndexKind:
    """The index kind a type's hit files read."""
    alias = HIT_FILES[kind]
    assert alias is not None  # a type without hit files has no page of hits
    return alias


def aliases_of(kind: ResourceType) -> set[IndexKind]:
    """The index kinds a type's files read (its hits, and the plans it is built from)."""
    hits: set[IndexKind] = {alias for alias in (HIT_FILES[kind],) if alias is not None}
    return hits | ({"plans"} if kind in PLAN_BUILT_TYPES else set())


def plan_file(job: ExportJob, kind: ResourceType) -> int | None:
    """The part number of a type's plan-built file (after its hit files), if it has one: the
    kick-off says which types' plan-built files hold something (``built``)."""
    built = kind in PLAN_BUILT_TYPES and job.built.get(kind, True)
    return job.files[kind] if built else None


def parts(job: ExportJob, kind: ResourceType) -> int:
    return job.files[kind] + (0 if plan_file(job, kind) is None else 1)


def files_of(count: int, hits_per_file: int) -> int:
    """The output files (slices) of a type with this many documents (none for none)."""
    return math.ceil(count / hits_per_file)


def transaction_time(now: datetime, job_started: str | None) -> datetime:
    """The instant an export is the snapshot of: ``now``, or the start of the indexer job that
    holds the prefix's lock (``started`` of its lock document): that job may have stamped some
    documents and not yet others, all at or after its start, so a later ``_since`` this instant
    gets them all (those already in this snapshot come again: a repeat, never a miss)."""
    if job_started is None:
        return now
    return min(now, datetime.fromisoformat(job_started).astimezone(UTC))


def changed_since(field: str, since: datetime) -> Json:
    """Stamped at or after ``since``: the stamps are to the second, so an update that began in
    the second of an export's ``transactionTime`` after its snapshot is in the next ``_since``
    (a resource stamped that second and already exported comes again: a repeat, never a miss)."""
    return {"range": {field: {"gte": instant(since)}}}


def type_query(kind: ResourceType, since: datetime | None, today_iso: str) -> Json:
    """The query of every document a type's resources are built from (changed after ``since``)."""
    if HIT_FILES[kind] == "plans":  # published: each document is one resource of its type
        filters: list[Json] = [{"term": {PLAN_FIELDS.resourceType: kind}}]
        changed_at = PLAN_FIELDS.changedAt
    else:
        body = build_query(Search(kind=kind), 0, None, date.fromisoformat(today_iso))
        filters = list(body["query"]["bool"]["filter"])
        changed_at = SEARCH_FIELDS.changedAt
    if since is not None:
        filters.append(changed_since(changed_at, since))
    return {"bool": {"filter": filters}}


def page_body(
    job: ExportJob, kind: ResourceType, part: int, after: list[Any] | None, page_size: int
) -> Json:
    """One page of one output file: its slice of the type's query over the job's PIT."""
    alias = alias_of(kind)
    body: Json = {
        "size": page_size,
        "query": type_query(kind, job.since, job.day.isoformat()),
        "pit": {"id": job.pits[alias], "keep_alive": f"{JOB_LIFETIME_SECONDS}s"},
        "sort": ["_shard_doc"],
        "track_total_hits": False,
        "_source": PUBLISHED_SOURCE if alias == "plans" else list(RESOURCE_SOURCE),
    }
    files = job.files[kind]
    if files > 1:
        body["slice"] = {"id": part, "max": files}
    if after is not None:
        body["search_after"] = after
    return body


def file_exists(job: ExportJob, name: str, part: int) -> bool:
    """``name``: a type, DELETED or ERRORS."""
    if name == DELETED:
        return part == 0 and DELETED in job.pits
    if name == ERRORS:
        return part == 0 and bool(job.ignored)
    return name in job.files and 0 <= part < parts(job, cast(ResourceType, name))


def removals_query(types: tuple[ResourceType, ...], since: datetime) -> Json:
    """The resources of these types updates removed after ``since``."""
    removed = changed_since(REMOVAL_FIELDS.removedAt, since)
    return {"bool": {"filter": [{"terms": {REMOVAL_FIELDS.resourceType: list(types)}}, removed]}}


def removals_page_body(job: ExportJob, after: list[Any] | None, page_size: int) -> Json:
    since = job.since
    assert since is not None  # a job has removals only when asked with _since
    body: Json = {
        "size": page_size,
        "query": removals_query(job.types, since),
        "pit": {"id": job.pits[DELETED], "keep_alive": f"{JOB_LIFETIME_SECONDS}s"},
        "sort": ["_shard_doc"],
        "track_total_hits": False,
        "_source": [REMOVAL_FIELDS.resourceType, REMOVAL_FIELDS.id],
    }
    if after is not None:
        body["search_after"] = after
    return body


def deleted_bundle(hits: list[Json]) -> Json:
    """A page of removals as the IG lists them: a transaction Bundle of DELETE requests."""
    requests = [f"{h['_source']['resourceType']}/{h['_source']['id']}" for h in hits]
    entries = [{"request": {"method": "DELETE", "url": url}} for url in requests]
    return {"resourceType": "Bundle", "type": "transaction", "entry": entries}


def manifest(job: ExportJob, base: str, job_id: str, token_needed: bool) -> Json:
    """The completion manifest: every type's files, by type and slice."""
    output = [
        {"type": kind, "url": f"{base}/$export-file/{job_id}/{kind}/{part}"}
        for kind in job.types
        for part in range(parts(job, kind))
    ]
    return {
        "transactionTime": instant(job.transaction_time),
        "request": job.request,
        "requiresAccessToken": token_needed,
        "output": output,
        **(
            {DELETED: [{"type": "Bundle", "url": f"{base}/$export-file/{job_id}/{DELETED}/0"}]}
            if DELETED in job.pits
            else {}
        ),
        "error": (
            [{"type": "OperationOutcome", "url": f"{base}/$export-file/{job_id}/{ERRORS}/0"}]
            if job.ignored
            else []
        ),
    }


def ignored_outcomes(job: ExportJob) -> list[Json]:
    """The error file: what lenient handling left out of the kick-off, one OperationOutcome per
    parameter (as the IG asks of a server that processed such a request)."""
    return [
        {
            "resourceType": "OperationOutcome",
            "issue": [
                {
                    "severity": "warning",
                    "code": "not-supported",
                    "details": {"text": "ignored"},
                    "diagnostics": f"{why}, so not applied",
                }
            ],
        }
        for _, why in job.ignored
    ]


PUBLISH_MANIFEST: Final = "http://hl7.org/fhir/uv/bulkdata/StructureDefinition/BulkPublishManifest"


def publish_manifest(job: ExportJob, base: str, job_id: str, token_needed: bool) -> Json:
    """The Bulk Publish manifest: the export of every type, without the request it answers."""
    exported = {
        k: v for k, v in manifest(job, base, job_id, token_needed).items() if k != "request"
    }
    return {"manifestType": PUBLISH_MANIFEST, **exported}
