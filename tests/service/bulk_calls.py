"""FHIR Bulk Data calls for the tests that run every Elasticsearch-backed endpoint through a
failure (outage, backend failures): a job kicked off while the node is there, and the check of a
FHIR error answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiohttp import ClientResponse
from yarl import URL

from tests.conftest import ApiClient

KICK_OFF = "/fhir/$export?_type=InsurancePlan"  # one small type: a job is cheap
BULK_PUBLISH = "/fhir/$bulk-publish"
ASYNC = {"Prefer": "respond-async"}
FHIR_JSON = "application/fhir+json"


@dataclass(frozen=True)
class ExportJob:
    status: str  # its $export-status path
    file: str  # the path of one of its files


async def kick_off(api: ApiClient, headers: dict[str, str] | None = None) -> ExportJob:
    """A job and one of its files. Any service process answers any job (its state is in
    Elasticsearch), so a service on the same indices behind a proxy reads it as its own."""
    kicked = await api.get(KICK_OFF, headers=ASYNC | (headers or {}))
    assert kicked.status == 202, await kicked.text()
    status = URL(kicked.headers["Content-Location"]).path
    answer = await api.get(status, headers=headers)
    assert answer.status == 200, await answer.text()
    manifest = await answer.json()
    return ExportJob(status, URL(manifest["output"][0]["url"]).path)


async def outcome(response: ClientResponse) -> dict[str, Any]:
    """The OperationOutcome of a FHIR error answer, checked to be one."""
    assert response.content_type == FHIR_JSON, (response.url, response.content_type)
    body: dict[str, Any] = await response.json(content_type=None)
    assert body["resourceType"] == "OperationOutcome"
    [issue] = body["issue"]
    assert issue["severity"] in ("error", "fatal")  # fatal: the service's own defect (500)
    return body
