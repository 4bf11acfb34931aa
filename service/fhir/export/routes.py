"""Bulk Data ``$export`` under /fhir: kick-off, status (and cancel), output files."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import aclosing
from email.utils import format_datetime

import orjson
from aiohttp import web

from core.changes import instant
from service.errors import ResourceNotFound
from service.fhir.base import base_url
from service.fhir.export.export import cancel, file_lines, kick_off, live_job
from service.fhir.export.job import file_exists, manifest, publish_manifest
from service.fhir.export.models import ExportJob
from service.fhir.export.publish import published_job
from service.fhir.export.request import NDJSON, read_kick_off
from service.web.contract import Route
from service.web.keys import ES, INDEX_NAMES, SETTINGS, TODAY
from service.web.middleware import allows_anonymous, requires_scope

EXPORT_JOB = "$export-job"
log = logging.getLogger(__name__)


async def _job(request: web.Request) -> ExportJob:
    job_id = request.match_info["job"]
    job = await live_job(request.app[ES], request.app[INDEX_NAMES], job_id)
    if job is None:
        raise ResourceNotFound(EXPORT_JOB, job_id)
    return job


@allows_anonymous
@requires_scope("providers:read")
async def export(request: web.Request) -> web.Response:
    asked = read_kick_off(request.query.items(), request.headers.get("Prefer", ""))
    app = request.app
    job_id = await kick_off(
        app[ES],
        app[INDEX_NAMES],
        asked,
        str(request.url),
        app[TODAY](),
        app[SETTINGS].export_hits_per_file,
    )
    status = f"{base_url(request)}/$export-status/{job_id}"
    return web.Response(status=202, headers={"Content-Location": status})


@allows_anonymous
@requires_scope("providers:read")
async def export_status(request: web.Request) -> web.Response:
    job = await _job(request)
    token_needed = not request.app[SETTINGS].fhir_anonymous
    body = manifest(job, base_url(request), request.match_info["job"], token_needed)
    headers = {"Expires": format_datetime(job.expires, usegmt=True), "X-Progress": "complete"}
    return web.Response(body=orjson.dumps(body), content_type="application/json", headers=headers)


@allows_anonymous
@requires_scope("providers:read")
async def export_cancel(request: web.Request) -> web.Response:
    job = await _job(request)
    await cancel(request.app[ES], request.app[INDEX_NAMES], request.match_info["job"], job)
    return web.Response(status=202)


@allows_anonymous
@requires_scope("providers:read")
async def export_file(request: web.Request) -> web.StreamResponse:
    job = await _job(request)
    kind, part = request.match_info["type"], request.match_info["part"]
    if not part.isdigit() or not file_exists(job, kind, int(part)):
        raise ResourceNotFound(EXPORT_JOB, f"{request.match_info['job']}/{kind}/{part}")
    app = request.app
    job_id, page_size = request.match_info["job"], app[SETTINGS].export_page_size
    lines = file_lines(app[ES], app[INDEX_NAMES], job_id, job, kind, int(part), page_size)
    async with aclosing(lines):
        # Read before the status line: Elasticsearch failing before the first byte is an
        # answer of its own (a 503, or the 404 of a snapshot gone), not a 200.
        first = await anext(lines, b"")
        response = web.StreamResponse(headers={"Content-Type": NDJSON})
        await response.prepare(request)
        await _stream(request, response, first, lines)
    await response.write_eof()
    return response


async def _stream(
    request: web.Request, response: web.StreamResponse, first: bytes, rest: AsyncIterator[bytes]
) -> None:
    """The file's bytes after its 200. A failure once some are sent cannot change the status:
    the connection is closed without the chunked body's last chunk, so the client sees the
    transfer fail and never takes a short file for a whole one."""
    try:
        await response.write(first)
        async for chunk in rest:
            await response.write(chunk)
    except Exception:
        log.warning("export file %s cut short: the connection is closed", request.path)
        if request.transport is not None:
            request.transport.close()
        raise


@allows_anonymous
@requires_scope("providers:read")
async def bulk_publish(request: web.Request) -> web.Response:
    app = request.app
    job_id, job = await published_job(
        app[ES],
        app[INDEX_NAMES],
        str(request.url),
        app[TODAY](),
        app[SETTINGS].export_hits_per_file,
    )
    token_needed = not app[SETTINGS].fhir_anonymous
    body = publish_manifest(job, base_url(request), job_id, token_needed)
    headers = {
        "ETag": f'"{job_id}-{instant(job.transaction_time)}"',
        "Cache-Control": "public, max-age=10",
        "Expires": format_datetime(job.expires, usegmt=True),  # when its files may be gone
    }
    return web.Response(body=orjson.dumps(body), content_type="application/json", headers=headers)


EXPORT_ROUTES = (
    Route("fhir-bulk-publish", "GET", "/$bulk-publish", bulk_publish),
    Route("fhir-export", "GET", "/$export", export),
    Route("fhir-export-status", "GET", "/$export-status/{job}", export_status),
    Route("fhir-export-cancel", "DELETE", "/$export-status/{job}", export_cancel),
    Route("fhir-export-file", "GET", "/$export-file/{job}/{type}/{part}", export_file),
)
