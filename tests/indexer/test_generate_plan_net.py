"""The synthetic Plan-Net bulk export (``indexer.generate.plan_net``), made from the sample."""

from __future__ import annotations

import csv
import gzip
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fhir.resources.R4B import get_fhir_model_class

from core.npi import is_valid_npi
from indexer.generate.plan_net import RESOURCE_TYPES, PlanNetStats, generate_plan_net
from tests.conftest import SAMPLE_DIR
from tests.source_rows import active_rows, canonical_bid, nppes_rows, zip_centroid

Resource = dict[str, Any]
NPPES = SAMPLE_DIR / "npidata_pfile_sample.csv.gz"
PLANS = SAMPLE_DIR / "medicare_plan_finder_2026_plans.csv"
NUCC = SAMPLE_DIR / "nucc_taxonomy_251.csv"
PLAN_NET = "http://hl7.org/fhir/us/davinci-pdex-plan-net"
NEWPATIENTS = f"{PLAN_NET}/StructureDefinition/newpatients"
NETWORK_REFERENCE = f"{PLAN_NET}/StructureDefinition/network-reference"
NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi"
MA_PLAN_SYSTEM = "https://www.cms.gov/medicare/ma-plan-id"
LINE1 = "Provider First Line Business Practice Location Address"
POSTAL = "Provider Business Practice Location Address Postal Code"
FHIR_ID = re.compile(r"[A-Za-z0-9\-.]{1,64}")


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, PlanNetStats]:
    out = tmp_path_factory.mktemp("plan-net")
    return out, generate_plan_net(NPPES, out, seed=7, plans=PLANS, nucc=NUCC)


@pytest.fixture(scope="module")
def resources(export: tuple[Path, PlanNetStats]) -> dict[str, list[Resource]]:
    out, _ = export
    return {
        kind: [orjson.loads(line) for line in (out / f"{kind}.ndjson").read_bytes().splitlines()]
        for kind in RESOURCE_TYPES
    }


@pytest.fixture(scope="module")
def source() -> list[dict[str, str]]:
    return active_rows(NPPES)


def _walk(value: Any) -> Iterator[Any]:
    yield value
    children = (
        value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    )
    for child in children:
        yield from _walk(child)


def _extension(resource: Resource, url: str) -> list[Resource]:
    return [e for e in resource.get("extension", []) if e["url"] == url]


def _accepting(resource: Resource) -> str:
    [newpatients] = _extension(resource, NEWPATIENTS)
    [accepting] = newpatients["extension"]
    code: str = accepting["valueCodeableConcept"]["coding"][0]["code"]
    return code


def test_one_ndjson_file_per_resource_type(
    export: tuple[Path, PlanNetStats], resources: dict[str, list[Resource]]
) -> None:
    out, stats = export
    assert sorted(path.name for path in out.iterdir()) == sorted(
        f"{kind}.ndjson" for kind in RESOURCE_TYPES
    )  # the .partial files renamed
    assert dict(stats.resources) == {kind: len(found) for kind, found in resources.items()}
    assert all(resources.values())
    for kind in RESOURCE_TYPES:
        text = (out / f"{kind}.ndjson").read_bytes()
        assert text.endswith(b"\n")
        for line in text.splitlines():
            assert line == orjson.dumps(orjson.loads(line))  # compact, one resource a line
        ids = [resource["id"] for resource in resources[kind]]
        assert len(set(ids)) == len(ids) and all(FHIR_ID.fullmatch(i) for i in ids)
        for resource in resources[kind]:
            assert resource["resourceType"] == kind
            profile = resource["meta"]["profile"][0]
            assert profile.startswith(f"{PLAN_NET}/StructureDefinition/plannet-")
            # FHIR JSON has no empty strings, arrays or objects.
            assert not [v for v in _walk(resource) if v in ("", [], {})], resource["id"]
    assert str(stats).startswith(f"wrote {stats.resources['Organization']:,} Organization")


def test_every_reference_resolves(resources: dict[str, list[Resource]]) -> None:
    written = {f"{kind}/{r['id']}" for kind, found in resources.items() for r in found}
    references = Counter(
        value["reference"]
        for found in resources.values()
        for resource in found
        for value in _walk(resource)
        if isinstance(value, dict) and "reference" in value
    )
    assert set(references) <= written
    kinds = {reference.split("/")[0] for reference in references}
    assert {"Practitioner", "Location", "Organization", "HealthcareService", "Endpoint"} <= kinds


def test_npis_are_the_source_rows(
    resources: dict[str, list[Resource]], source: list[dict[str, str]]
) -> None:
    def npis(kind: str) -> list[str]:
        return [
            identifier["value"]
            for resource in resources[kind]
            for identifier in resource.get("identifier", [])
            if identifier["system"] == NPI_SYSTEM
        ]

    individuals = [row["NPI"] for row in source if row["Entity Type Code"] == "1"]
    organisations = [row["NPI"] for row in source if row["Entity Type Code"] == "2"]
    assert sorted(npis("Practitioner")) == sorted(individuals)
    assert sorted(npis("Organization")) == sorted(organisations)
    assert all(isinstance(npi, str) and is_valid_npi(npi) for npi in individuals + organisations)
    assert {r["id"] for r in resources["PractitionerRole"]} == {f"role-{n}" for n in individuals}
    for role in resources["PractitionerRole"]:
        specialties = [s["coding"][0]["code"] for s in role.get("specialty", [])]
        assert len(set(specialties)) == len(specialties)  # a code repeated per licence, once
    assert len(source) < len(nppes_rows(NPPES))  # the sample's deactivated rows were skipped
    by_npi = {row["NPI"]: row for row in source}
    for practitioner in resources["Practitioner"][:200]:
        row = by_npi[practitioner["id"].removeprefix("practitioner-")]
        assert practitioner["name"][0]["family"] == row["Provider Last Name (Legal Name)"]
        sex = row["Provider Sex Code"]
        assert practitioner["gender"] == {"M": "male", "F": "female"}.get(sex, "unknown")
        codes = {q["code"]["coding"][0]["code"] for q in practitioner["qualification"]}
        assert codes == {row[f"Healthcare Provider Taxonomy Code_{n}"] for n in range(1, 16)} - {""}


def test_payer_networks_and_plans(resources: dict[str, list[Resource]]) -> None:
    payer, *networks = resources["Organization"][:5]
    assert payer["type"][0]["coding"][0]["code"] == "payer"
    assert payer["name"] == "Synthetic Health Plan"
    for network in networks:
        assert network["type"][0]["coding"][0]["code"] == "ntwk"
        assert network["meta"]["profile"] == [f"{PLAN_NET}/StructureDefinition/plannet-Network"]
        assert network["partOf"]["reference"] == f"Organization/{payer['id']}"
        assert network["name"].startswith("Synthetic Health Plan ")
    assert any(n["name"] == "Synthetic Health Plan HMO Network" for n in networks)
    plans = resources["InsurancePlan"]
    assert len(plans) == 6
    network_refs = {f"Organization/{network['id']}" for network in networks}
    for plan in plans:
        assert plan["status"] == "active" and plan["ownedBy"] == plan["administeredBy"]
        assert 1 <= len(plan["network"]) <= 2
        assert {n["reference"] for n in plan["network"]} <= network_refs
    with open(PLANS, encoding="utf-8", newline="") as handle:
        real = {canonical_bid(row["bid_id"]) for row in csv.DictReader(handle)}
    identifiers = [(p["identifier"][0]["system"], p["identifier"][0]["value"]) for p in plans]
    medicare = [value for system, value in identifiers if system == MA_PLAN_SYSTEM]
    assert len(medicare) == 3 and all(canonical_bid(bid) in real for bid in medicare)
    own = [value for system, value in identifiers if system != MA_PLAN_SYSTEM]
    assert own == ["SHP-GOLD-01", "SHP-SILVER-01", "SHP-BRONZE-01"]


def test_languages_at_us_rates(resources: dict[str, list[Resource]]) -> None:
    practitioners = resources["Practitioner"]
    spoken = Counter(
        language["coding"][0]["code"]
        for practitioner in practitioners
        for language in practitioner["communication"]
    )
    assert all(p["communication"][0]["coding"][0]["code"] == "en" for p in practitioners)
    assert spoken["en"] == len(practitioners)
    share = {code: count / len(practitioners) for code, count in spoken.items()}
    assert 0.10 <= share["es"] <= 0.16
    assert 0.01 <= share["zh"] <= 0.035
    for code in ("vi", "tl", "ko", "ru", "ar", "fr", "pt", "ht"):
        assert 0.002 <= share[code] <= 0.02, code
    assert set(share) == {"en", "es", "zh", "vi", "tl", "ko", "ru", "ar", "fr", "pt", "ht"}
    english = practitioners[0]["communication"][0]["coding"][0]
    assert english == {"system": "urn:ietf:bcp:47", "code": "en", "display": "English"}


def test_networks_accepting_patients_and_endpoints(
    resources: dict[str, list[Resource]],
) -> None:
    roles = resources["PractitionerRole"]
    networks = [len(_extension(role, NETWORK_REFERENCE)) for role in roles]
    assert 0.10 <= networks.count(0) / len(roles) <= 0.20
    assert set(networks) == {0, 1, 2}
    accepting = Counter(_accepting(r) for r in roles + resources["HealthcareService"])
    assert set(accepting) == {"newpt", "existptonly", "existptfam", "nopt"}
    assert accepting["newpt"] > 0.6 * sum(accepting.values())
    organisations = len(resources["HealthcareService"])
    assert 0.78 <= len(resources["OrganizationAffiliation"]) / organisations <= 0.92
    assert 0.05 <= len(resources["Endpoint"]) / organisations <= 0.15
    for endpoint in resources["Endpoint"]:
        assert endpoint["connectionType"]["code"] == "direct-project"
        assert endpoint["address"].startswith("mailto:")
    kinds = Counter(o["type"][0]["coding"][0]["code"] for o in resources["Organization"][5:])
    assert set(kinds) == {"prvgrp", "fac"}


def test_one_location_per_address_near_its_zip_centroid(
    resources: dict[str, list[Resource]], source: list[dict[str, str]]
) -> None:
    locations = {location["id"]: location for location in resources["Location"]}
    keys = [
        (loc["address"]["line"][0], loc["address"]["postalCode"][:5]) for loc in locations.values()
    ]
    assert len(set(keys)) == len(keys)
    by_npi = {row["NPI"]: row for row in source}
    for role in resources["PractitionerRole"]:
        row = by_npi[role["id"].removeprefix("role-")]
        [where] = role["location"]
        address = locations[where["reference"].removeprefix("Location/")]["address"]
        assert _words(address["line"][0]) == _words(row[LINE1])
        assert address["postalCode"][:5] == row[POSTAL][:5]
    positioned = 0
    for location in locations.values():
        assert location["address"]["country"] == "USA"
        place = zip_centroid(location["address"]["postalCode"])  # the package, read here
        if place is None:
            assert "position" not in location
            continue
        positioned += 1
        position = location["position"]
        assert abs(position["latitude"] - place[0]) <= 0.0101
        assert abs(position["longitude"] - place[1]) <= 0.0101
        assert (position["latitude"], position["longitude"]) != (place[0], place[1])
    assert positioned > 0.9 * len(locations)
    with_patients = sum(bool(_extension(loc, NEWPATIENTS)) for loc in locations.values())
    assert 0.4 <= with_patients / len(locations) <= 0.6


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^A-Z0-9 ]+", " ", text.upper()).split())


def test_same_seed_same_bytes_other_seed_differs(
    tmp_path: Path, export: tuple[Path, PlanNetStats]
) -> None:
    out, _ = export
    generate_plan_net(NPPES, tmp_path / "again", seed=7, plans=PLANS, nucc=NUCC)
    generate_plan_net(NPPES, tmp_path / "other", seed=8, plans=PLANS, nucc=NUCC)
    for kind in RESOURCE_TYPES:
        first = (out / f"{kind}.ndjson").read_bytes()
        assert (tmp_path / "again" / f"{kind}.ndjson").read_bytes() == first, kind
    for kind in ("Practitioner", "PractitionerRole", "Location", "InsurancePlan"):
        assert (tmp_path / "other" / f"{kind}.ndjson").read_bytes() != (
            out / f"{kind}.ndjson"
        ).read_bytes(), kind


def test_fixed_bid_ids_without_a_plan_file(tmp_path: Path) -> None:
    small = tmp_path / "npidata_pfile_small.csv.gz"
    with gzip.open(NPPES, "rt", encoding="utf-8") as full, gzip.open(small, "wt") as part:
        part.writelines(line for _, line in zip(range(40), full, strict=False))
    stats = generate_plan_net(small, tmp_path / "out")
    assert stats.rows > 0 and stats.resources["InsurancePlan"] == 6
    plans = (tmp_path / "out" / "InsurancePlan.ndjson").read_bytes().splitlines()
    bids = [p["identifier"][0]["value"] for p in map(orjson.loads, plans)][:3]
    assert bids == ["H9001-001-000", "H9001-002-000", "H9002-001-000"]


def test_resources_validate_as_fhir_r4(resources: dict[str, list[Resource]]) -> None:
    for kind, made in resources.items():
        for resource in made[:50]:
            get_fhir_model_class(kind).model_validate(resource)
