"""Searches round two: a code without a system, a count of Locations, and the distance of a
free-text search's matches. Expected values are read from the source files (the NPPES sample,
the Plan-Net export) or, for distances, computed here from the positions the service gives."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fhir.resources.R4B.bundle import Bundle

from tests.conftest import ApiClient
from tests.plan_net_rows import resources
from tests.service.fhir import fhir_rows as F
from tests.service.fhir.fhir_rows import Json
from tests.service.fhir.test_fhir_paging_includes import LOCATION_CASES, Case
from tests.source_rows import miles

ORG_TYPE_SYSTEM = "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/OrgTypeCS"
BAND = 0.01  # miles
PUBLISHED = ("HealthcareService", "Endpoint")


def _common_code() -> str:
    return F.most_common(c for r in F.individuals() for c in F.codes(r))[0]


@pytest.mark.parametrize(
    ("kind", "param", "value"),
    [
        ("PractitionerRole", "specialty", "{code}"),
        ("Practitioner", "_id", "{npi}"),
        ("Organization", "type", "prvgrp"),
    ],
)
async def test_a_code_with_its_system_or_none(
    api: ApiClient, kind: str, param: str, value: str
) -> None:
    """``code`` matches whatever the system; ``|code`` asks for a code without a system, which
    no specialty, role or organisation type has (FHIR token search)."""
    asked = value.format(code=_common_code(), npi=F.individuals()[3]["NPI"])
    found = await F.fetch(api, f"/fhir/{kind}", [(param, asked), ("_summary", "count")])
    assert found["total"] > 0
    if param != "_id":
        empty = await F.fetch(api, f"/fhir/{kind}", [(param, f"|{asked}"), ("_summary", "count")])
        assert empty["total"] == 0


async def test_a_role_code_without_a_system_matches_nothing(api: ApiClient) -> None:
    asked = [("role", "|" + _common_code()), ("_summary", "count")]
    assert (await F.fetch(api, "/fhir/PractitionerRole", asked))["total"] == 0
    typed = [("type", f"{ORG_TYPE_SYSTEM}|prvgrp"), ("_summary", "count")]
    assert (await F.fetch(api, "/fhir/Organization", typed))["total"] > 0


@pytest.mark.parametrize("case", LOCATION_CASES, ids=lambda c: c.__name__[9:])
@pytest.mark.parametrize("asked", [("_summary", "count"), ("_count", "0")])
async def test_a_location_count(
    api: ApiClient, case: Callable[[], Case], asked: tuple[str, str]
) -> None:
    params, expected = case()
    bundle = await F.fetch(api, "/fhir/Location", [*params, asked])
    Bundle.model_validate(bundle)
    assert "entry" not in bundle
    assert bundle["total"] == sum(expected.values()) > 0


async def test_free_text_near_says_how_far(api: ApiClient) -> None:
    person = F.individuals()[5]
    role = await F.fetch(api, f"/fhir/PractitionerRole/{person['NPI']}")
    first = await F.fetch(api, f"/fhir/{role['location'][0]['reference']}")
    center = (first["position"]["latitude"], first["position"]["longitude"])
    text = person["Provider Last Name (Legal Name)"]
    asked = [("_text", text), ("near", f"{center[0]}|{center[1]}|25|mi"), ("_count", "10")]
    bundle = await F.fetch(api, "/fhir/PractitionerRole", asked)
    matches = [e for e in bundle["entry"] if e["search"]["mode"] == "match"]
    assert person["NPI"] in {e["resource"]["id"] for e in matches}
    for entry in matches:
        [extension] = entry["search"]["extension"]
        assert extension["url"] == "http://hl7.org/fhir/StructureDefinition/location-distance"
        nearest = min([await _miles_to(api, center, ref) for ref in entry["resource"]["location"]])
        assert abs(extension["valueDistance"]["value"] - nearest) < BAND


async def _miles_to(api: ApiClient, center: tuple[float, float], reference: Json) -> float:
    place = await F.fetch(api, f"/fhir/{reference['reference']}")
    position = place.get("position")
    if position is None:
        return float("inf")
    return miles(center, (position["latitude"], position["longitude"]))


async def test_the_result_parameters_are_declared_and_answered(api: ApiClient) -> None:
    statement = await F.fetch(api, "/fhir/metadata")
    declared = {p["name"]: p["type"] for p in statement["rest"][0]["searchParam"]}
    assert declared == {"_count": "number", "_summary": "token", "_elements": "string"}
    strict = {"Prefer": "handling=strict"}
    for kind in (r["type"] for r in statement["rest"][0]["resource"]):
        for asked in (("_count", "0"), ("_summary", "count")):
            bundle = await F.fetch(api, f"/fhir/{kind}", [asked], headers=strict)
            assert "entry" not in bundle, (kind, asked)
        for asked in (("_summary", "true"), ("_elements", "id"), ("_summary", "data")):
            response = await api.get(
                f"/fhir/{kind}", params=[asked, ("_count", "2")], headers=strict
            )
            bundle = await response.json(content_type=None)
            assert response.status == 200 and bundle["entry"], (kind, asked)
            tags = [e["resource"]["meta"]["tag"] for e in bundle["entry"]]
            assert all({"code": "SUBSETTED"}.items() <= t[-1].items() for t in tags), (kind, asked)


@pytest.mark.parametrize("kind", ["Location", "PractitionerRole", "HealthcareService", "Endpoint"])
async def test_identifier_on_the_other_types(api: ApiClient, kind: str) -> None:
    """Locations and roles are built from providers' records, which give them no identifier;
    the services and endpoints a payer publishes keep the export's (the sample's have none,
    while its Locations and roles do: those are not served as the export gives them)."""
    # An identifier the export gives a Location of its own.
    value = next(i["value"] for r in resources("Location") for i in r.get("identifier", []))
    served = resources(kind) if kind in PUBLISHED else []
    expected = [r for r in served if any(i.get("value") == value for i in r.get("identifier", []))]
    strict = {"Prefer": "handling=strict"}
    found = await F.fetch(api, f"/fhir/{kind}", [("identifier", value)], headers=strict)
    assert len(F.entries([found])) == len(expected)
