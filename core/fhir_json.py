"""What FHIR JSON allows, for the API that serves it and the generator that writes exports
(pure)."""

from __future__ import annotations

from core.documents import Json


def without_empty(element: Json) -> Json:
    """Absent values, empty strings, lists and objects left out: FHIR has no empty elements."""
    return {key: value for key, value in element.items() if value not in (None, [], {}, "")}
