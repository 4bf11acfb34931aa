"""A published resource's hit -> the resource served (pure): what payers' directories publish
(HealthcareService, Endpoint) is served as they gave it."""

from __future__ import annotations

from core.changes import CHANGED_AT
from core.documents import Json
from service.fhir.models import Resource


def published_resource(hit: Json) -> Resource:
    """The resource as stored, last updated when it last changed in this directory (what the
    payer's own ``meta.lastUpdated`` said is not what ``_lastUpdated`` compares)."""
    source = hit["_source"]
    resource: Resource = source["resource"]
    resource["meta"] = {**resource["meta"], "lastUpdated": source[CHANGED_AT]}
    return resource


def references(resource: Resource, element: str) -> list[str]:
    """The ``Type/id`` references of one element (a list or a single reference)."""
    value = resource.get(element)
    found = value if isinstance(value, list) else [value] if isinstance(value, dict) else []
    return [r["reference"] for r in found if isinstance(r, dict) and "reference" in r]
