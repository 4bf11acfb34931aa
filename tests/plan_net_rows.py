"""What the Plan-Net reference export in shared says, read with plain JSON: the expectations of
the Plan-Net tests, never the indexer's reading of it."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# The Plan-Net reference implementation's export, bundled with the sample (data/sample/README.md).
PLAN_NET_DIR = Path(__file__).resolve().parents[1] / "data" / "sample" / "plannet"
PLAN_NET_NAME = "ri"  # the name the tests load the reference export under
NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi"
NETWORK_EXTENSION = (
    "http://hl7.org/fhir/us/davinci-pdex-plan-net/StructureDefinition/network-reference"
)
NEW_HAVEN = {"lat": 41.3083, "lng": -72.9279}


def resources(kind: str, directory: Path = PLAN_NET_DIR) -> Iterator[dict[str, Any]]:
    for path in sorted(directory.glob(f"*_{kind}.ndjson*")):
        text = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        for line in text.decode("utf-8").splitlines():
            if line.strip():
                yield json.loads(line)


def npi_of(resource: dict[str, Any]) -> str | None:
    for identifier in resource.get("identifier", []):
        if identifier.get("system") == NPI_SYSTEM:
            return str(identifier["value"])
    return None


def usable_practitioners() -> dict[str, dict[str, Any]]:
    """Practitioner reference -> resource, for those whose NPI is published once (its check
    digit right or wrong: a payer's NPI is served as published)."""
    found: dict[str, dict[str, Any]] = {}
    seen: dict[str, int] = {}
    for resource in resources("Practitioner"):
        npi = npi_of(resource)
        if npi:
            seen[npi] = seen.get(npi, 0) + 1
            found[f"Practitioner/{resource['id']}"] = resource
    return {ref: r for ref, r in found.items() if seen[npi_of(r) or ""] == 1}


def languages(practitioner: dict[str, Any]) -> set[str]:
    return {
        coding["code"]
        for item in practitioner.get("communication", [])
        for coding in item.get("coding", [])
    }


def positions() -> dict[str, tuple[float, float]]:
    """Location reference -> (lat, lng) of those with a position."""
    return {
        f"Location/{r['id']}": (r["position"]["latitude"], r["position"]["longitude"])
        for r in resources("Location")
        if "position" in r
    }


def role_networks(role: dict[str, Any]) -> set[str]:
    return {
        e["valueReference"]["reference"]
        for e in role.get("extension", [])
        if e.get("url") == NETWORK_EXTENSION
    }


def practitioner_of(role: dict[str, Any]) -> str:
    """The role's practitioner reference ("" when it names none)."""
    return str(role.get("practitioner", {}).get("reference") or "")
