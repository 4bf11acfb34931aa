"""Searchset Bundles and OperationOutcomes (pure)."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

import orjson

from service.fhir.models import NEAR_UNITS, Near, Resource, Search, Subset
from service.fhir.render.subsetting import subsetted
from service.statuses import fhir_issue

LOCATION_DISTANCE = "http://hl7.org/fhir/StructureDefinition/location-distance"
UCUM = "http://unitsofmeasure.org"


@dataclass
class Page:
    """What one page of a search found: its matches, what they bring along, and where the next
    page starts (None: the last page)."""

    matches: list[Resource] = field(default_factory=list)
    included: list[Resource] = field(default_factory=list)
    total: int | None = None
    next_cursor: str | None = None
    # Miles from a near search's point to each match, by (type, id).
    miles: dict[tuple[str, str], float] = field(default_factory=dict)


def _url(base: str, search: Search, cursor: str | None = None) -> str:
    pairs = list(search.applied)
    if cursor is not None:
        pairs.append(("_cursor", cursor))
    query = urlencode(pairs)
    return f"{base}/{search.kind}" + (f"?{query}" if query else "")


def _entry(base: str, resource: Resource, mode: str, subset: Subset) -> Resource:
    full_url = f"{base}/{resource['resourceType']}/{resource['id']}"
    kept = subsetted(resource, subset)
    return {"fullUrl": full_url, "resource": kept, "search": {"mode": mode}}


def _distance(near: Near, miles: float) -> Resource:
    """The location-distance extension: how far the match is, in the unit the search used."""
    per_unit, code = NEAR_UNITS[near.unit]
    value = {"value": round(miles / per_unit, 3), "unit": near.unit, "system": UCUM, "code": code}
    return {"url": LOCATION_DISTANCE, "valueDistance": value}


def _match(base: str, search: Search, page: Page, resource: Resource) -> Resource:
    entry = _entry(base, resource, "match", search.subset)
    miles = page.miles.get((resource["resourceType"], resource["id"]))
    if search.near is not None and miles is not None:
        entry["search"]["extension"] = [_distance(search.near, miles)]
    return entry


def searchset(base: str, search: Search, page: Page) -> bytes:
    """``base``: the FHIR API's absolute root, e.g. ``https://host/fhir``. The self link says
    the search as it was run: what lenient handling left out is not in it."""
    links = [{"relation": "self", "url": _url(base, search, search.cursor)}]
    if page.next_cursor is not None:
        links.append({"relation": "next", "url": _url(base, search, page.next_cursor)})
    seen = {(r["resourceType"], r["id"]) for r in page.matches}
    included = []
    for resource in page.included:
        key = (resource["resourceType"], resource["id"])
        if key not in seen:
            seen.add(key)
            included.append(resource)
    bundle: Resource = {"resourceType": "Bundle", "type": "searchset"}
    if page.total is not None:
        bundle["total"] = page.total
    bundle["link"] = links
    bundle["entry"] = [
        *(_match(base, search, page, r) for r in page.matches),
        *(_entry(base, r, "include", _of_included(search.subset)) for r in included),
    ]
    if search.ignored:
        bundle["entry"].append({"resource": _ignored(search), "search": {"mode": "outcome"}})
    if not bundle["entry"]:
        del bundle["entry"]
    return orjson.dumps(bundle)


def _of_included(subset: Subset) -> Subset:
    """``_summary`` reduces every entry; ``_elements`` only the matches (R4 3.1.1.5.9: included
    resources are given whole)."""
    return Subset(subset.summary)


def _ignored(search: Search) -> Resource:
    """What lenient handling left out, one warning per parameter."""
    issues = [
        {
            "severity": "warning",
            "code": "not-supported",
            "details": {"text": "ignored"},
            "diagnostics": f"{name}: not supported on {search.kind} here, so not applied",
        }
        for name in search.ignored
    ]
    return {"resourceType": "OperationOutcome", "issue": issues}


def operation_outcome(status: int, code: str, detail: str) -> bytes:
    """The FHIR API's error answer (``code``: the service's stable error code, as details)."""
    issue = {
        "severity": "error" if status < 500 or status == 503 else "fatal",
        "code": fhir_issue(status),
        "details": {"coding": [{"code": code}], "text": code},
        "diagnostics": detail,
    }
    return orjson.dumps({"resourceType": "OperationOutcome", "issue": [issue]})
