"""Bulk Data ``$export``'s use cases: kick off (open the snapshot, record the job), status (the
manifest: the files are read from the snapshot when asked, so a job is complete once recorded),
one output file streamed page by page, cancel, and the sweep of expired jobs."""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from datetime import UTC, date, datetime, timedelta
from typing import Any, cast

import orjson
from elasticsearch import AsyncElasticsearch

from core.changes import instant
from core.documents import Json
from core.index_contract import IndexNames
from service.fhir.export import store as store
from service.fhir.export.job import (
    DELETED,
    ERRORS,
    HIT_FILES,
    JOB_LIFETIME_SECONDS,
    PLAN_BUILT_TYPES,
    alias_of,
    aliases_of,
    deleted_bundle,
    files_of,
    ignored_outcomes,
    page_body,
    plan_file,
    removals_page_body,
    removals_query,
    transaction_time,
    type_query,
)
from service.fhir.export.models import ExportJob
from service.fhir.export.request import ExportRequest
from service.fhir.models import Resource, ResourceType
from service.fhir.render.hits import hit_of
from service.fhir.render.plans import PlanRecord, PlanResources
from service.fhir.render.published import published_resource
from service.fhir.resource_types import SERVED
from service.fhir.sources.store import plan_records

KEEP_ALIVE = f"{JOB_LIFETIME_SECONDS}s"


async def kick_off(
    es: AsyncElasticsearch,
    names: IndexNames,
    asked: ExportRequest,
    request_url: str,
    today: date,
    hits_per_file: int,
    job_id: str | None = None,
) -> str:
    """Open the snapshot on every alias the types read, count each type, record the job.
    ``today``: the day whose in-network rows the roles and affiliations are built with."""
    await sweep(es, names)
    now = datetime.now(UTC)
    # Read before the snapshot opens: a job that starts after it stamps at or after ``now``.
    as_of = transaction_time(now, await store.lock_started(es, names))
    aliases = sorted(set().union(*(aliases_of(kind) for kind in asked.types)))
    pits: dict[str, str] = {
        alias: await store.open_pit(es, names.alias(alias), KEEP_ALIVE) for alias in aliases
    }
    files: dict[ResourceType, int] = {}
    with store.opened_just_now():
        for kind in asked.types:
            if HIT_FILES[kind] is None:
                files[kind] = 0  # its one file is plan-built
                continue
            query = type_query(kind, asked.since, today.isoformat())
            counted = await store.count(es, pits[alias_of(kind)], query)
            files[kind] = files_of(counted, hits_per_file)
        built = {kind: False for kind in asked.types if kind in PLAN_BUILT_TYPES}
        if built:  # which plan-built files hold anything (a few hundred plans: read at once)
            records = plan_records(await store.snapshot_plans(es, pits["plans"]))
            built = {kind: bool(_plan_built(kind, records, asked.since)) for kind in built}
        if asked.since is not None:
            await _removals(es, names, asked, pits)
    job_id = job_id or uuid.uuid4().hex
    job = ExportJob(
        request=request_url,
        types=asked.types,
        since=asked.since,
        day=today,
        transaction_time=as_of,
        expires=now + timedelta(seconds=JOB_LIFETIME_SECONDS),
        pits=pits,
        files=files,
        built=built,
        ignored=asked.ignored,
    )
    await store.save_job(es, names, job_id, job)
    return job_id


async def _removals(
    es: AsyncElasticsearch, names: IndexNames, asked: ExportRequest, pits: dict[str, str]
) -> None:
    """The removals since ``_since``, snapshot with the rest when there are any."""
    assert asked.since is not None
    pit = await store.open_removals_pit(es, names, KEEP_ALIVE)
    if pit is None:
        return
    if await store.count(es, pit, removals_query(asked.types, asked.since)):
        pits[DELETED] = pit
    else:
        await store.close_pit(es, pit)


async def live_job(es: AsyncElasticsearch, names: IndexNames, job_id: str) -> ExportJob | None:
    """The job, unless unknown, cancelled or expired."""
    job = await store.job(es, names, job_id)
    if job is None or job.expired(datetime.now(UTC)):
        return None
    return job


async def cancel(es: AsyncElasticsearch, names: IndexNames, job_id: str, job: ExportJob) -> None:
    for pit in job.pits.values():
        await store.close_pit(es, pit)
    await store.delete_job(es, names, job_id)


async def sweep(es: AsyncElasticsearch, names: IndexNames) -> None:
    """Expired jobs: their snapshots closed, their documents deleted."""
    for job_id, job in await store.expired_jobs(es, names, instant(datetime.now(UTC))):
        await cancel(es, names, job_id, job)


def _resources(kind: ResourceType, raw: Json, today: date) -> list[Resource]:
    """The resources one document gives a type's file (rendered as /fhir search renders them)."""
    rendered = SERVED[kind].rendered
    if rendered is None:  # published: stored as served
        return [published_resource(raw)]
    return rendered.of(hit_of(raw, today))


async def file_lines(
    es: AsyncElasticsearch,
    names: IndexNames,
    job_id: str,
    job: ExportJob,
    name: str,
    part: int,
    page_size: int,
) -> AsyncGenerator[bytes]:
    """One output file (``name``: a type, DELETED or ERRORS), a page of hits at a time (NDJSON).
    A snapshot found gone ends the job: its files can no longer be read whole."""
    try:
        async for lines in _file_lines(es, job, name, part, page_size):
            yield lines
    except store.SnapshotGone:
        await cancel(es, names, job_id, job)
        raise


async def _file_lines(
    es: AsyncElasticsearch, job: ExportJob, name: str, part: int, page_size: int
) -> AsyncIterator[bytes]:
    if name == DELETED:
        async for line in _deleted_lines(es, job, page_size):
            yield line
        return
    if name == ERRORS:
        yield b"".join(orjson.dumps(outcome) + b"\n" for outcome in ignored_outcomes(job))
        return
    kind = cast(ResourceType, name)
    today = job.day
    if part == plan_file(job, kind):
        records = plan_records(await store.snapshot_plans(es, job.pits["plans"]))
        chosen = _plan_built(kind, records, job.since)
        yield b"".join(orjson.dumps(r) + b"\n" for r in chosen)
        return
    after: list[Any] | None = None
    while True:
        hits = await store.page(es, page_body(job, kind, part, after, page_size))
        if not hits:
            return
        yield b"".join(
            orjson.dumps(r) + b"\n" for raw in hits for r in _resources(kind, raw, today)
        )
        after = hits[-1]["sort"]


def _plan_built(
    kind: ResourceType, records: list[PlanRecord], since: datetime | None
) -> list[Resource]:
    """A type's plan-built resources (payers and networks, InsurancePlans, or counties), built
    from every plan; with ``_since``, those a plan changed at or after it is built into."""

    of = SERVED[kind].plan_built
    assert of is not None  # only plan-built types have such a file
    every = of(PlanResources(records))
    if since is None:
        return every
    cutoff = instant(since)
    changed = [r for r in records if r.changed_at >= cutoff]
    ids = {resource["id"] for resource in of(PlanResources(changed))}
    return [resource for resource in every if resource["id"] in ids]


async def _deleted_lines(
    es: AsyncElasticsearch, job: ExportJob, page_size: int
) -> AsyncIterator[bytes]:
    after: list[Any] | None = None
    while hits := await store.page(es, removals_page_body(job, after, page_size)):
        yield orjson.dumps(deleted_bundle(hits)) + b"\n"
        after = hits[-1]["sort"]
