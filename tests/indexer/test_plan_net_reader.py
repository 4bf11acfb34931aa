"""Reading a Plan-Net export (no Elasticsearch): every resource accounted for, a broken export
rejected line by line with its reason, Bundles read as NDJSON is, points and codes read."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from indexer.sources.plan_net import read_plan_net
from indexer.sources.plan_net_files import RESOURCE_TYPES
from tests.plan_net_rows import PLAN_NET_DIR, npi_of, resources, usable_practitioners

Rejected = list[tuple[str, int, str, str]]
VALID_NPI = "1234567893"
OTHER_NPI = "1245319599"


def _luhn_ok(npi: str) -> bool:
    """The NPI check digit, by hand: Luhn over "80840" + the NPI (10 digits)."""
    digits = [int(d) for d in "80840" + npi][::-1]
    return (
        sum(d if i % 2 == 0 else (2 * d - 9 if d > 4 else 2 * d) for i, d in enumerate(digits)) % 10
        == 0
    )


def _kind(organization: dict[str, Any]) -> str:
    return next((c["code"] for t in organization.get("type", []) for c in t["coding"]), "")


def _collect() -> tuple[Rejected, Any]:
    rejected: Rejected = []
    return rejected, lambda file, line, npi, reason: rejected.append((file, line, npi, reason))


def test_the_reference_export_is_accounted_for_resource_by_resource() -> None:
    rejected, reject = _collect()
    directory = read_plan_net(PLAN_NET_DIR, reject)
    for kind in RESOURCE_TYPES:
        lines = sum(1 for _ in resources(kind))
        assert directory.read[kind] == lines, kind
        assert directory.used[kind] + directory.rejected[kind] == lines, kind
    assert len(rejected) == sum(directory.rejected.values())
    # Every practitioner whose NPI is published once is used, its check digit right or wrong.
    usable = {npi_of(r) for r in usable_practitioners().values()}
    individuals = {npi for npi, p in directory.providers.items() if p.person.individual}
    assert individuals == usable
    assert not [r for r in rejected if "invalid_npi" in r[3] or "missing_npi" in r[3]]
    wrong = {npi for npi in usable if npi and not _luhn_ok(npi)}
    flagged = Counter(p.person.issue for p in directory.providers.values() if p.person.issue)
    assert directory.warnings == flagged and flagged["npi_check_digit_invalid"] >= len(wrong) > 0
    # Pharmacies the payer publishes without an NPI are providers too, each keyed by its own id.
    pharmacies = [
        o
        for o in resources("Organization")
        if not npi_of(o) and o.get("name") and _kind(o) in ("prov", "fac", "prvgrp", "atyprv")
    ]
    assert flagged["npi_missing"] == len(pharmacies) > 100


def _practitioner(npi: str, ident: str, language: str = "es") -> dict[str, Any]:
    return {
        "resourceType": "Practitioner",
        "id": ident,
        "identifier": [{"system": "http://hl7.org/fhir/sid/us-npi", "value": npi}],
        "name": [{"family": "Ortiz", "given": ["Ana"]}],
        "communication": [{"coding": [{"system": "urn:ietf:bcp:47", "code": language}]}],
    }


def _location(ident: str, **extra: Any) -> dict[str, Any]:
    return {
        "resourceType": "Location",
        "id": ident,
        "address": {
            "line": ["1 Main St"],
            "city": "Hartford",
            "state": "CT",
            "postalCode": "06103",
        },
        **extra,
    }


def _network(ident: str) -> dict[str, Any]:
    kind = "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/OrgTypeCS"
    return {
        "resourceType": "Organization",
        "id": ident,
        "name": "Net",
        "type": [{"coding": [{"system": kind, "code": "ntwk"}]}],
    }


def _role(ident: str, practitioner: str, location: str, network: str) -> dict[str, Any]:
    return {
        "resourceType": "PractitionerRole",
        "id": ident,
        "practitioner": {"reference": f"Practitioner/{practitioner}"},
        "location": [{"reference": f"Location/{location}"}],
        "extension": [
            {
                "url": "http://hl7.org/fhir/us/davinci-pdex-plan-net/StructureDefinition/"
                "network-reference",
                "valueReference": {"reference": f"Organization/{network}"},
            }
        ],
    }


def _write(path: Path, lines: list[Any]) -> None:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))


def test_a_broken_export_is_rejected_line_by_line_and_the_rest_loads(tmp_path: Path) -> None:
    _write(tmp_path / "Organization.ndjson", [_network("net")])
    position = {"position": {"latitude": 41.76, "longitude": -72.68}}
    _write(tmp_path / "Location.ndjson", [_location("here", **position), "{not json"])
    _write(
        tmp_path / "Practitioner.ndjson",
        [
            _practitioner(VALID_NPI, "good"),
            _practitioner("1234567890", "bad-check-digit"),
            _practitioner(OTHER_NPI, "bad-language", language="zz-not-a-language"),
            {"resourceType": "PractitionerRole", "id": "misplaced"},
        ],
    )
    _write(
        tmp_path / "PractitionerRole.ndjson",
        [
            _role("ok", "good", "here", "net"),
            _role("no-location", "good", "nowhere", "net"),
            _role("no-practitioner", "bad-check-digit", "here", "net"),
        ],
    )
    _write(tmp_path / "Claim.ndjson", [{"resourceType": "Claim", "id": "c1"}])
    rejected, reject = _collect()
    directory = read_plan_net(tmp_path, reject)
    reasons = {(file, line): reason for file, line, _, reason in rejected}
    assert reasons == {
        ("Location.ndjson", 2): "invalid_json",
        ("Practitioner.ndjson", 3): "bad_code: language zz-not-a-language",
        ("Practitioner.ndjson", 4): "wrong_type: PractitionerRole in a Practitioner file",
        ("PractitionerRole.ndjson", 2): "dangling_reference: Location",
        ("Claim.ndjson", 1): "unknown_type: Claim",
    }
    assert directory.accounted
    # A wrong check digit is a warning: the practitioner and its role are used as published.
    assert directory.warnings == {"npi_check_digit_invalid": 1}
    assert directory.providers["1234567890"].person.issue == "npi_check_digit_invalid"
    provider = directory.providers[VALID_NPI]
    assert provider.person.languages == ("Spanish",)
    (site,) = provider.sites.values()
    assert (site.lat, site.lng) == (41.76, -72.68)
    assert [m.network for m in provider.memberships] == ["Organization/net"]


def test_a_bundle_reads_as_the_same_resources_in_ndjson_do(tmp_path: Path) -> None:
    entries = [
        _role("ok", "good", "here", "net"),  # before what it points at: read in its turn
        _network("net"),
        _location("here"),
        _practitioner(VALID_NPI, "good"),
    ]
    bundle = {
        "resourceType": "Bundle",
        "type": "searchset",
        "entry": [{"resource": r} for r in entries],
    }
    (tmp_path / "page-1.json").write_text(json.dumps(bundle))
    rejected, reject = _collect()
    directory = read_plan_net(tmp_path, reject)
    assert rejected == []
    assert directory.used["PractitionerRole"] == 1
    assert [m.network for m in directory.providers[VALID_NPI].memberships] == ["Organization/net"]


@pytest.mark.parametrize(
    ("extra", "point"),
    [
        ({"position": {"latitude": 41.5, "longitude": -72.5}}, (41.5, -72.5)),
        ({}, (None, None)),
    ],
)
def test_a_location_point_comes_from_its_position(
    tmp_path: Path, extra: dict[str, Any], point: tuple[float | None, float | None]
) -> None:
    _write(tmp_path / "Location.ndjson", [_location("here", **extra)])
    directory = read_plan_net(tmp_path, lambda *_: None)
    assert directory.used["Location"] == 1
    _write(tmp_path / "Organization.ndjson", [_network("net")])
    _write(tmp_path / "Practitioner.ndjson", [_practitioner(VALID_NPI, "good")])
    _write(tmp_path / "PractitionerRole.ndjson", [_role("ok", "good", "here", "net")])
    directory = read_plan_net(tmp_path, lambda *_: None)
    (site,) = directory.providers[VALID_NPI].sites.values()
    assert (site.lat, site.lng) == point


def test_an_address_geolocation_extension_gives_the_point(tmp_path: Path) -> None:
    geo = {
        "url": "http://hl7.org/fhir/StructureDefinition/geolocation",
        "extension": [
            {"url": "latitude", "valueDecimal": 41.3},
            {"url": "longitude", "valueDecimal": -72.9},
        ],
    }
    location = _location("here")
    location["address"]["extension"] = [geo]
    _write(tmp_path / "Location.ndjson", [location])
    _write(tmp_path / "Organization.ndjson", [_network("net")])
    _write(tmp_path / "Practitioner.ndjson", [_practitioner(VALID_NPI, "good")])
    _write(tmp_path / "PractitionerRole.ndjson", [_role("ok", "good", "here", "net")])
    directory = read_plan_net(tmp_path, lambda *_: None)
    (site,) = directory.providers[VALID_NPI].sites.values()
    assert (site.lat, site.lng) == (41.3, -72.9)
