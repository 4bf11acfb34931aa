"""``_summary`` and ``_elements``: a built resource reduced to what the client asked for (pure,
FHIR R4 3.1.1.5.8-9). A reduced resource carries the SUBSETTED tag."""

from __future__ import annotations

from typing import Final

from core.documents import Json
from service.fhir.models import Subset
from service.fhir.render.summary_elements import MANDATORY, SUMMARY

SUBSETTED: Final = {
    "system": "http://terminology.hl7.org/CodeSystem/v3-ObservationValue",
    "code": "SUBSETTED",
}
ALWAYS: Final = frozenset({"resourceType", "id", "meta"})


def _kept(resource: Json, subset: Subset) -> set[str]:
    kind = resource["resourceType"]
    if subset.summary == "data":
        return set(resource) - {"text"}
    required = ALWAYS | MANDATORY[kind]
    if subset.summary == "true":
        return set(required | SUMMARY[kind])
    if subset.summary == "text":
        return set(required | {"text"})
    return set(required | set(subset.elements))


def subsetted(resource: Json, subset: Subset) -> Json:
    if subset.whole:
        return resource
    kept = _kept(resource, subset)
    reduced = {name: value for name, value in resource.items() if name in kept}
    meta = dict(reduced.get("meta", {}))
    meta["tag"] = [*meta.get("tag", []), SUBSETTED]
    reduced["meta"] = meta
    return reduced
