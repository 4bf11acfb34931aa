"""Bulk Data export's state in Elasticsearch: the jobs index under the prefix (one document per
job, so any service process answers any job) and the points in time the jobs read."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

from elasticsearch import AsyncElasticsearch, NotFoundError

from core.documents import Json
from core.index_contract import UNVERSIONED_SETTINGS, IndexNames
from core.lock_record import LOCK_FIELDS, LOCK_ID
from service.errors import BackendUnavailable, NotFoundInput
from service.fhir.export.models import JOB_FIELDS, ExportJob, StoredJob
from service.fhir.sources.store import EVERY_PLAN
from service.storage import ALLOW_PARTIAL_RESULTS, elasticsearch_errors

JOBS_WHAT = "the export jobs index"
# A job is read whole by its id; only its expiry is searched (the sweep): StoredJob.
JOBS_MAPPING: Json = JOB_FIELDS.mapping()


# A whole-directory read is no quick search: a page of a file or a kick-off's count may take
# seconds on a node busy with searches, past the service's sub-second request timeout.
EXPORT_REQUEST_TIMEOUT_S = 30.0


def _reading(es: AsyncElasticsearch) -> AsyncElasticsearch:
    return es.options(request_timeout=EXPORT_REQUEST_TIMEOUT_S)


class SnapshotGone(NotFoundInput):
    """A snapshot the job reads is gone: Elasticsearch closed its point in time (a node
    restarted, a reload deleted the version it was opened on) or let it expire."""

    def __init__(self) -> None:
        super().__init__(
            "job",
            "this export's snapshot is gone (Elasticsearch no longer holds it): kick off a new"
            " export",
            code="export_snapshot_gone",
        )


@contextmanager
def _in_snapshot(what: str) -> Iterator[None]:
    """A search of a point in time names no index: its 404 is the point in time gone."""
    with elasticsearch_errors(what):
        try:
            yield
        except NotFoundError as error:
            raise SnapshotGone() from error


def jobs_index(names: IndexNames) -> str:
    return f"{names.prefix}-exports"


async def open_pit(es: AsyncElasticsearch, index: str, keep_alive: str) -> str:
    with elasticsearch_errors(index):
        response = await _reading(es).open_point_in_time(index=index, keep_alive=keep_alive)
    return str(response["id"])


async def open_removals_pit(
    es: AsyncElasticsearch, names: IndexNames, keep_alive: str
) -> str | None:
    """A snapshot of the removals index, when there is one (a directory loaded before it
    existed has none)."""
    index = names.alias("removals")
    with elasticsearch_errors(index):
        response = await es.options(ignore_status=404).open_point_in_time(
            index=index, keep_alive=keep_alive
        )
    return str(response["id"]) if "id" in response else None


async def lock_started(es: AsyncElasticsearch, names: IndexNames) -> str | None:
    """When the indexer job holding the prefix's lock started (indexer.lock), if one does."""
    with elasticsearch_errors(names.lock()):
        response = await es.options(ignore_status=404).get(index=names.lock(), id=LOCK_ID)
    return str(response["_source"][LOCK_FIELDS.started]) if response.get("found") else None


async def close_pit(es: AsyncElasticsearch, pit: str) -> None:
    with elasticsearch_errors("an export snapshot"):  # one already expired is gone: fine
        await es.options(ignore_status=404).close_point_in_time(id=pit)


async def _search_snapshot(es: AsyncElasticsearch, body: Json, what: str) -> Json:
    """A search of a snapshot, every shard answering (a file missing some is no file)."""
    with _in_snapshot(what):
        response = await _reading(es).search(
            body=body, allow_partial_search_results=ALLOW_PARTIAL_RESULTS
        )
    return dict(response.body)


async def count(es: AsyncElasticsearch, pit: str, query: Json) -> int:
    body = {"size": 0, "query": query, "pit": {"id": pit}, "track_total_hits": True}
    response = await _search_snapshot(es, body, "an export count")
    return int(response["hits"]["total"]["value"])


@contextmanager
def opened_just_now() -> Iterator[None]:
    """Reads of the snapshots a kick-off has just opened: a 404 there is the directory replaced
    under the kick-off (no job has lost anything yet), a 503 to retry."""
    try:
        yield
    except SnapshotGone as error:
        raise BackendUnavailable("the directory changed during the kick-off") from error


async def page(es: AsyncElasticsearch, body: Json) -> list[Json]:
    return list((await _search_snapshot(es, body, "an export file"))["hits"]["hits"])


async def snapshot_plans(es: AsyncElasticsearch, pit: str) -> Json:
    """Every plan, as the snapshot holds them (an answer of ``EVERY_PLAN``)."""
    return await _search_snapshot(es, {**EVERY_PLAN, "pit": {"id": pit}}, "an export file")


async def save_job(es: AsyncElasticsearch, names: IndexNames, job_id: str, job: ExportJob) -> None:
    """The job recorded. Read back by id (a real-time get), so no refresh is waited for: one
    waits for the index's next refresh, up to its interval, longer than the service's request
    timeout (a first kick-off answered 503). Made on first use, the index is created under the
    export's longer timeout: creating an index waits on the cluster state."""
    index = jobs_index(names)
    with elasticsearch_errors(JOBS_WHAT):
        if not await es.indices.exists(index=index):
            await (
                _reading(es)
                .options(ignore_status=400)
                .indices.create(  # 400: made elsewhere
                    index=index, settings=UNVERSIONED_SETTINGS, mappings=JOBS_MAPPING
                )
            )
        await _reading(es).index(index=index, id=job_id, document=job.stored())


def _job_of(source: Json) -> ExportJob:
    return ExportJob.from_stored(cast(StoredJob, source))


async def job(es: AsyncElasticsearch, names: IndexNames, job_id: str) -> ExportJob | None:
    with elasticsearch_errors(JOBS_WHAT):
        response = await es.options(ignore_status=404).get(index=jobs_index(names), id=job_id)
    return _job_of(response["_source"]) if response.get("found") else None


async def delete_job(es: AsyncElasticsearch, names: IndexNames, job_id: str) -> None:
    with elasticsearch_errors(JOBS_WHAT):
        await es.options(ignore_status=404).delete(index=jobs_index(names), id=job_id)


async def expired_jobs(
    es: AsyncElasticsearch, names: IndexNames, now: str
) -> list[tuple[str, ExportJob]]:
    body = {"size": 100, "query": {"range": {JOB_FIELDS.expires: {"lte": now}}}}
    with elasticsearch_errors(JOBS_WHAT):
        response = await es.options(ignore_status=404).search(index=jobs_index(names), body=body)
    if "hits" not in response:
        return []
    return [(h["_id"], _job_of(h["_source"])) for h in response["hits"]["hits"]]
