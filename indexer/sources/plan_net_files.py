"""A Plan-Net export on disk, read as resources in the order their references need.

Two layouts, mixed freely in one directory: NDJSON files, one resource type per file, as a FHIR
bulk ``$export`` writes them (``Practitioner.ndjson``, ``Practitioner_2.ndjson``,
``acme_Practitioner.ndjson``, gzip or plain), and JSON files holding a Bundle (searchset or
collection) or one resource. Resources that point at others (PractitionerRole,
OrganizationAffiliation) come after every other resource of the export, so each reference can be
resolved when it is read; an NDJSON file is read line by line, so memory does not grow with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from indexer.sources.csvfiles import open_binary

# Read in turns: what is only pointed at, then what points at those, then the resources that
# join them all.
TURNS: tuple[tuple[str, ...], ...] = (
    ("Organization", "Location", "Practitioner", "Endpoint"),
    ("HealthcareService", "InsurancePlan"),
    ("PractitionerRole", "OrganizationAffiliation"),
)
RESOURCE_TYPES = tuple(kind for turn in TURNS for kind in turn)
# The longest name first, so "PractitionerRole.ndjson" is not taken for a Practitioner file.
_TYPE_IN_NAME = re.compile(
    r"(?<![A-Za-z])(" + "|".join(sorted(RESOURCE_TYPES, key=len, reverse=True)) + r")(?![a-z])"
)
_NDJSON = (".ndjson", ".ndjson.gz", ".jsonl", ".jsonl.gz")
_JSON = (".json", ".json.gz")


@dataclass(frozen=True, slots=True)
class Place:
    """Where a resource was read: the file and its line (NDJSON) or Bundle entry (1-based)."""

    file: str
    line: int


@dataclass(frozen=True, slots=True)
class Resource:
    type: str
    body: dict[str, Any]
    place: Place


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A line or entry that is not a resource of this export; ``reason`` says why."""

    place: Place
    reason: str


def export_files(directory: Path) -> list[Path]:
    """The export's files (NDJSON and JSON), in name order; FileNotFoundError when none."""
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory} is not a directory")
    found = sorted(
        path
        for path in directory.iterdir()
        if path.is_file() and path.name.lower().endswith((*_NDJSON, *_JSON))
    )
    if not found:
        raise FileNotFoundError(f"no .ndjson or .json files in {directory}")
    return found


def type_in_name(path: Path) -> str | None:
    """The resource type a bulk export file's name says it holds (None: it says none)."""
    found = _TYPE_IN_NAME.search(path.name)
    return found.group(1) if found else None


def _classify(body: Any, place: Place, expected: str | None) -> Resource | Unreadable:
    if not isinstance(body, dict) or not isinstance(body.get("resourceType"), str):
        return Unreadable(place, "not_a_resource")
    kind = body["resourceType"]
    if kind not in RESOURCE_TYPES:
        return Unreadable(place, f"unknown_type: {kind}"[:80])
    if expected is not None and kind != expected:
        return Unreadable(place, f"wrong_type: {kind} in a {expected} file")
    if not isinstance(body.get("id"), str) or not body["id"]:
        return Unreadable(place, "missing_id")
    return Resource(kind, body, place)


def _ndjson(path: Path, expected: str | None) -> Iterator[Resource | Unreadable]:
    with open_binary(path) as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            place = Place(path.name, number)
            try:
                body = orjson.loads(line)
            except orjson.JSONDecodeError:
                yield Unreadable(place, "invalid_json")
                continue
            yield _classify(body, place, expected)


def _json(path: Path) -> Iterator[Resource | Unreadable]:
    with open_binary(path) as handle:
        try:
            body = orjson.loads(handle.read())
        except orjson.JSONDecodeError:
            yield Unreadable(Place(path.name, 0), "invalid_json")
            return
    if not (isinstance(body, dict) and body.get("resourceType") == "Bundle"):
        yield _classify(body, Place(path.name, 1), None)
        return
    for number, entry in enumerate(body.get("entry") or [], start=1):
        resource = entry.get("resource") if isinstance(entry, dict) else None
        yield _classify(resource, Place(path.name, number), None)


def read_export(directory: Path) -> Iterator[Resource | Unreadable]:
    """Every resource of the export (or why a line or entry is not one), turn by turn
    (``TURNS``). A file whose name says its type is read once, in its type's turn; any other
    file is read in every turn, its unreadable lines reported in the first."""
    files = export_files(directory)
    for number, turn in enumerate(TURNS):
        for path in files:
            expected = type_in_name(path)
            if expected is not None and expected not in turn:
                continue
            is_ndjson = path.name.lower().endswith(_NDJSON)
            for item in _ndjson(path, expected) if is_ndjson else _json(path):
                if isinstance(item, Resource):
                    if item.type in turn:
                        yield item
                elif expected is not None or number == 0:
                    yield item
