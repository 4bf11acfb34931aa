"""Bulk Data ``$bulk-publish``: the static form of the whole directory. Its manifest is an export
of every type (``service.fhir.export.export``) named by the last finished load or update (the
publication record, core.publication), kicked off by the first request after it; its files are
that export's, so they stream as any export's do. A file outlives its manifest by the export's
lifetime (the grace period the IG asks for), then answers 404."""

from __future__ import annotations

from datetime import date

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from core.publication import publication_key
from service.errors import ResourceNotFound
from service.fhir.export.export import kick_off, live_job
from service.fhir.export.models import ExportJob
from service.fhir.export.request import EXPORT_TYPES, ExportRequest
from service.storage import publication

PUBLICATION = "$bulk-publish"


async def published_job(
    es: AsyncElasticsearch,
    names: IndexNames,
    request_url: str,
    today: date,
    hits_per_file: int,
) -> tuple[str, ExportJob]:
    """The export the current publication is served as (its id, its job), started if need be."""
    record = await publication(es, names)
    if record is None:
        raise ResourceNotFound(PUBLICATION, "nothing is published: no load has finished")
    job_id = f"publish-{publication_key(record)}"
    job = await live_job(es, names, job_id)
    if job is None:
        every = ExportRequest(EXPORT_TYPES, None)
        await kick_off(es, names, every, request_url, today, hits_per_file, job_id)
        job = await live_job(es, names, job_id)
        assert job is not None  # just recorded
    return job_id, job
