"""A faulty Plan-Net export of the NPPES sample (``generate-plan-net --faults default``, run as
an operator runs it) and what a directory scorecard of it must say, worked out here from its
truth file, its files read with plain JSON and the NPPES sample read with csv
(tests.source_rows), never through the indexer."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from tests.conftest import SAMPLE_DIR
from tests.source_rows import nppes_rows

Resource = dict[str, Any]
Export = dict[str, list[Resource]]
NPPES = SAMPLE_DIR / "npidata_pfile_sample.csv.gz"
NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi"
LINE1 = "Provider First Line Business Practice Location Address"
POSTAL = "Provider Business Practice Location Address Postal Code"
NAME = "payer"  # the export's directory name: what it is loaded and served as
CHECKS = (  # README "Directory scorecards": every check a scorecard answers, in its order
    "npi_check_digit_invalid", "npi_malformed", "npi_missing", "npi_deactivated",
    "npi_not_in_nppes", "name_differs_from_nppes", "many_locations", "address_unconfirmed",
    "no_phone", "zip_only_geocode", "unresolved_references", "plans_without_network",
    "networks_without_plan",
)  # fmt: skip


def generate(out: Path, truth: Path) -> None:
    command = [
        sys.executable, "-m", "indexer.cli", "generate-plan-net", "--nppes", str(NPPES),
        "--out", str(out), "--faults", "default", "--truth", str(truth),
        "--plans", str(SAMPLE_DIR / "medicare_plan_finder_2026_plans.csv"),
        "--nucc", str(SAMPLE_DIR / "nucc_taxonomy_251.csv"),
    ]  # fmt: skip
    done = subprocess.run(command, cwd=SAMPLE_DIR.parent.parent, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def read_export(out: Path) -> Export:
    export: Export = {}
    for path in sorted(out.glob("*.ndjson")):
        for line in path.read_bytes().splitlines():
            if line.strip():
                resource = orjson.loads(line)
                export.setdefault(resource["resourceType"], []).append(resource)
    return export


def write_export(export: Export, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for kind, found in export.items():
        (out / f"{kind}.ndjson").write_bytes(b"\n".join(orjson.dumps(r) for r in found) + b"\n")


def entries(truth: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [entry for entry in truth["faults"] if entry["code"] == code]


def npi_of(resource: Resource) -> str | None:
    values = [i["value"] for i in resource.get("identifier", []) if i["system"] == NPI_SYSTEM]
    return str(values[0]) if values else None


def _role_locations(export: Export) -> dict[str, set[str]]:
    """NPI -> the Location references its roles list."""
    npis = {f"Practitioner/{p['id']}": npi_of(p) for p in export.get("Practitioner", [])}
    found: dict[str, set[str]] = {}
    for role in export.get("PractitionerRole", []):
        npi = npis.get(role["practitioner"]["reference"])
        if npi is not None:
            found.setdefault(npi, set()).update(w["reference"] for w in role.get("location", []))
    return found


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^A-Z0-9 ]+", " ", text.upper()).split())


def _has_phone(location: Resource) -> bool:
    return any(t.get("system") == "phone" and t.get("value") for t in location.get("telecom", []))


def _check_digit_ok(npi: str) -> bool:
    """The NPI's Luhn check over the prefix 80840 (CMS's rule)."""
    digits = [int(d) for d in "80840" + npi]
    total = sum(
        (d * 2 - 9 if d * 2 > 9 else d * 2) if i % 2 == 1 else d
        for i, d in enumerate(reversed(digits))
    )
    return total % 10 == 0


def _count(values: Iterable[bool]) -> int:
    return sum(1 for value in values if value)


def expected_counts(export: Export, truth: dict[str, Any]) -> dict[str, int]:
    """Each check's count as the export and its truth file say it."""
    rows = {row["NPI"]: row for row in nppes_rows(NPPES)}
    locations = {f"Location/{loc['id']}": loc for loc in export.get("Location", [])}
    listed = _role_locations(export)
    people = [*export.get("Practitioner", [])]
    published = [npi_of(p) for p in people]
    # Listings only a payer gives: a moved practitioner's one Location, a practitioner listed
    # under a deactivated NPI everywhere it is listed, and every many-locations Location other
    # than the practitioner's own NPPES address.
    unconfirmed = len(entries(truth, "address_unconfirmed"))
    unconfirmed += sum(len(listed.get(e["npi"], ())) for e in entries(truth, "npi_deactivated"))
    for entry in entries(truth, "many_locations"):
        row = rows[entry["npi"]]
        own = (_words(row[LINE1]), row[POSTAL][:5])
        unconfirmed += _count(
            (_words(locations[r]["address"]["line"][0]), locations[r]["address"]["postalCode"][:5])
            != own
            for r in entry["locations"]
        )
    plans = export.get("InsurancePlan", [])
    networks = {f"Organization/{o['id']}" for o in export["Organization"] if _is_network(o)}
    named = {n["reference"] for p in plans for n in _plan_networks(p)}
    return {
        "npi_check_digit_invalid": _count(
            n is not None and re.fullmatch(r"[0-9]{10}", n) is not None and not _check_digit_ok(n)
            for n in published
        ),
        "npi_malformed": _count(
            n is not None and re.fullmatch(r"[0-9]{10}", n) is None for n in published
        ),
        "npi_missing": _count(n is None for n in published),
        "npi_deactivated": len(entries(truth, "npi_deactivated")),
        "npi_not_in_nppes": _count(n is not None and n not in rows for n in published),
        "name_differs_from_nppes": len(entries(truth, "name_differs_from_nppes")),
        "many_locations": len(entries(truth, "many_locations")),
        "address_unconfirmed": unconfirmed,
        "no_phone": _count(not _has_phone(loc) for loc in locations.values()),
        "zip_only_geocode": _count("position" not in loc for loc in locations.values()),
        "unresolved_references": 0,
        "plans_without_network": _count(not _plan_networks(p) for p in plans),
        "networks_without_plan": len(networks - named),
    }


def _is_network(organization: Resource) -> bool:
    return any(c["code"] == "ntwk" for t in organization.get("type", []) for c in t["coding"])


def _plan_networks(plan: Resource) -> list[Resource]:
    inner = (n for p in plan.get("plan", []) for n in p.get("network", []))
    return [*plan.get("network", []), *inner]


def expected_holds(export: Export) -> dict[str, Any]:
    return {
        "resources": {kind: len(found) for kind, found in export.items()},
        "locations": len(export.get("Location", [])),
        "plans": len(export.get("InsurancePlan", [])),
        "networks": _count(_is_network(o) for o in export["Organization"]),
    }


def expected_freshness(export: Export) -> dict[str, str]:
    days = sorted(r["meta"]["lastUpdated"][:10] for found in export.values() for r in found)
    return {"oldest": days[0], "median": days[(len(days) - 1) // 2], "newest": days[-1]}
