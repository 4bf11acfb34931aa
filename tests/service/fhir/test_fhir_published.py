"""HealthcareServices and Endpoints as the payer's Plan-Net export publishes them, on a real
Elasticsearch: expectations read from the export's files with plain JSON."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from tests.conftest import ApiClient
from tests.plan_net_rows import npi_of, resources
from tests.service.fhir import fhir_rows as F
from tests.service.fhir.conftest import PLAN_NET_NAME
from tests.source_rows import words as normalize

Json = dict[str, Any]


def _served_id(resource_id: str) -> str:
    """The directory's id of a published resource: ``<directory>-<id>``, FHIR id characters."""
    return re.sub(r"[^A-Za-z0-9.-]+", "-", f"{PLAN_NET_NAME}-{resource_id}").strip("-")[:64]


def _by_ref(kind: str) -> dict[str, Json]:
    return {f"{kind}/{r['id']}": r for r in resources(kind)}


def _services() -> list[Json]:
    """The services the directory keeps: each location they name is in the export."""
    locations = _by_ref("Location")
    return [
        s
        for s in resources("HealthcareService")
        if all(loc.get("reference") in locations for loc in s.get("location", []))
    ]


def _codes(resource: Json, element: str) -> set[str]:
    return {c["code"] for concept in resource.get(element, []) for c in concept.get("coding", [])}


def _organization_npi(resource: Json, element: str) -> str | None:
    """The NPI of the organisation ``element`` names, when the export's organisations hold it
    once (its check digit right or wrong: served as published; a duplicate is rejected and the
    reference stays a name)."""
    organizations = _by_ref("Organization")
    npis = Counter(npi_of(o) for o in organizations.values())
    org = organizations.get(resource.get(element, {}).get("reference", ""))
    npi = npi_of(org) if org else None
    return npi if npi and npis[npi] == 1 else None


async def test_every_kept_service_and_endpoint_is_served_and_read(api: ApiClient) -> None:
    services = {_served_id(s["id"]) for s in _services()}
    assert set(await F.found_ids(api, "HealthcareService", [])) == services
    endpoints = {_served_id(e["id"]) for e in resources("Endpoint")}
    assert set(await F.found_ids(api, "Endpoint", [])) == endpoints
    one = sorted(services)[0]
    read = await F.fetch(api, f"/fhir/HealthcareService/{one}")
    assert read["id"] == one
    await F.fetch(api, "/fhir/HealthcareService/nobody-here", status=404)
    await F.fetch(api, f"/fhir/Endpoint/{one}", status=404)  # a service's id is no endpoint


async def test_services_are_found_by_code_name_and_place(api: ApiClient) -> None:
    services = _services()
    code = sorted(_codes(services[0], "specialty") or _codes(services[0], "category"))[0]
    element = "specialty" if _codes(services[0], "specialty") else "category"
    param = "specialty" if element == "specialty" else "service-category"
    expected = {_served_id(s["id"]) for s in services if code in _codes(s, element)}
    assert set(await F.found_ids(api, "HealthcareService", [(param, code)])) == expected
    category = sorted(_codes(services[0], "category"))[0]
    by_category = {_served_id(s["id"]) for s in services if category in _codes(s, "category")}
    found = await F.found_ids(api, "HealthcareService", [("service-category", category)])
    assert set(found) == by_category
    named = [s for s in services if s.get("name")]
    if named:
        prefix = normalize(named[0]["name"])[:4]
        expected = {_served_id(s["id"]) for s in named if normalize(s["name"]).startswith(prefix)}
        assert set(await F.found_ids(api, "HealthcareService", [("name", prefix)])) == expected
    locations = _by_ref("Location")
    city = next(
        locations[loc["reference"]]["address"]["city"]
        for s in services
        for loc in s.get("location", [])
        if locations[loc["reference"]].get("address", {}).get("city")
    )
    in_city = {
        _served_id(s["id"])
        for s in services
        if any(
            normalize(locations[loc["reference"]].get("address", {}).get("city", ""))
            == normalize(city)
            for loc in s.get("location", [])
        )
    }
    chained = [("location.address-city:exact", city)]
    assert set(await F.found_ids(api, "HealthcareService", chained)) == in_city


async def test_a_provider_organisation_and_its_services_point_at_each_other(
    api: ApiClient,
) -> None:
    provided = [(s, _organization_npi(s, "providedBy")) for s in _services()]
    npi = next(n for _, n in provided if n)
    expected = {_served_id(s["id"]) for s, n in provided if n == npi}
    found = await F.found_ids(api, "HealthcareService", [("organization", f"Organization/{npi}")])
    assert set(found) == expected
    pages = await F.walk(
        api,
        "HealthcareService",
        [("organization", npi), ("_include", "HealthcareService:organization")],
    )
    assert {(r["resourceType"], r["id"]) for r in F.entries(pages, "include")} == {
        ("Organization", npi)
    }
    revincluded = await F.walk(
        api, "Organization", [("_id", npi), ("_revinclude", "HealthcareService:organization")]
    )
    assert {r["id"] for r in F.entries(revincluded, "include")} == expected


async def test_services_bring_their_endpoints(api: ApiClient) -> None:
    with_endpoints = [s for s in _services() if s.get("endpoint")]
    assert with_endpoints, "the reference export has a service naming its endpoint"
    service = with_endpoints[0]
    endpoints = {_served_id(e["reference"].partition("/")[2]) for e in service["endpoint"]}
    pages = await F.walk(
        api,
        "HealthcareService",
        [("_id", _served_id(service["id"])), ("_include", "HealthcareService:endpoint")],
    )
    assert {r["id"] for r in F.entries(pages, "include")} == endpoints


async def test_endpoints_are_found_by_their_organisation(api: ApiClient) -> None:
    managed = [(e, _organization_npi(e, "managingOrganization")) for e in resources("Endpoint")]
    with_npi = [(e, n) for e, n in managed if n]
    assert with_npi, "the reference export has endpoints managed by provider organisations"
    npi = with_npi[0][1]
    expected = {_served_id(e["id"]) for e, n in with_npi if n == npi}
    found = await F.found_ids(api, "Endpoint", [("organization", f"Organization/{npi}")])
    assert set(found) == expected
