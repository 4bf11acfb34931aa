"""A Bulk Data ``$export`` kick-off request read (HL7 Bulk Data Access IG 2.0, pure): its
``Prefer`` header and its parameters.

The server does ``_type``, ``_since`` and ``_outputFormat`` (NDJSON). Any other parameter
(``_typeFilter``, ``_elements``, ``patient``, ``includeAssociatedData``, anything unknown) and a
``_type`` it does not export are refused with an OperationOutcome 400, as the IG asks, unless
the client sent ``Prefer: handling=lenient``: then they are ignored, and the manifest's
``error`` array names each (service.fhir.export.job).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from service.errors import InvalidInput
from service.fhir.models import PUBLISHED_TYPES, ResourceType

NDJSON: Final = "application/fhir+ndjson"
OUTPUT_FORMATS: Final = frozenset({NDJSON, "application/ndjson", "ndjson"})
# Served from the search index's provider documents (one resource, or its locations, per hit).
PROVIDER_TYPES: Final[tuple[ResourceType, ...]] = (
    "Practitioner",
    "PractitionerRole",
    "Organization",
    "OrganizationAffiliation",
    "Location",
)
EXPORT_TYPES: Final = (*PROVIDER_TYPES, *PUBLISHED_TYPES, "InsurancePlan")
DONE: Final = frozenset({"_type", "_since", "_outputFormat"})
# A FHIR instant: to the second at least, with its zone. A '+' sent unencoded in a query string
# is read as a space: before the offset, it can be nothing else.
_INSTANT = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+ -][0-9]{2}:[0-9]{2})"
)


@dataclass(frozen=True)
class ExportRequest:
    types: tuple[ResourceType, ...]
    since: datetime | None
    # What lenient handling left out, each with why: (parameter, reason).
    ignored: tuple[tuple[str, str], ...] = ()


def _preferences(prefer: str) -> set[str]:
    return {p.strip().lower() for p in re.split(r"[,;]", prefer) if p.strip()}


def read_kick_off(pairs: Iterable[tuple[str, str]], prefer: str) -> ExportRequest:
    """The kick-off's parameters; a 400 for what the server cannot do as asked."""
    preferences = _preferences(prefer)
    if "respond-async" not in preferences:
        raise InvalidInput("Prefer", "Prefer: respond-async is required to start an export")
    lenient = "handling=lenient" in preferences
    given: dict[str, list[str]] = {}
    for name, value in pairs:
        given.setdefault(name, []).append(value)
    ignored: list[tuple[str, str]] = []
    for name in sorted(given.keys() - DONE):
        why = f"{name}: not supported by this server's $export"
        if not lenient:
            raise InvalidInput(name, f"{why} (send Prefer: handling=lenient to have it ignored)")
        ignored.append((name, why))
    output_format = _one(given, "_outputFormat") or NDJSON
    if output_format not in OUTPUT_FORMATS:
        raise InvalidInput("_outputFormat", f"_outputFormat: only {NDJSON} is supported")
    # Repeated, _type's values count as one comma-separated list (the IG).
    named = [t.strip() for v in given.get("_type", []) for t in v.split(",") if t.strip()]
    unknown = sorted({t for t in named if t not in EXPORT_TYPES})
    if unknown:
        why = f"_type: not exported here: {', '.join(unknown)}"
        if not lenient:
            raise InvalidInput("_type", why)
        ignored.append(("_type", why))
    types = tuple(t for t in EXPORT_TYPES if not named or t in named)
    return ExportRequest(types, read_since(_one(given, "_since")), tuple(sorted(ignored)))


def _one(given: dict[str, list[str]], name: str) -> str | None:
    values = given.get(name, [])
    if len(values) > 1:
        raise InvalidInput(name, f"{name}: given {len(values)} times, takes one value")
    return values[0] if values else None


def read_since(value: str | None) -> datetime | None:
    """``_since`` as a UTC moment (None when not given); a 400 unless a FHIR instant."""
    if value is None:
        return None
    moment = None
    if _INSTANT.fullmatch(value):
        text = value.replace("Z", "+00:00")
        if text[-6] == " ":
            text = f"{text[:-6]}+{text[-5:]}"
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:  # a day, an hour or an offset out of range
            moment = None
    if moment is None:
        raise InvalidInput(
            "_since",
            "_since: a FHIR instant with its time zone, e.g. 2026-01-01T00:00:00Z or"
            " 2026-01-01T00:00:00+02:00 (its '+' encoded as %2B in a URL)",
        )
    return moment.astimezone(UTC)
