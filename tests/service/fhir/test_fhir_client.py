"""A real FHIR client (fhirpy) against the API served on a socket: searches it builds, pages it
follows through ``next`` links, references it resolves, and errors it raises, compared with what
the source files say."""

from __future__ import annotations

from typing import Any

import pytest
from fhirpy import AsyncFHIRClient
from fhirpy.base.exceptions import AuthorizationError, OperationOutcome, ResourceNotFound

from tests.conftest import ApiClient
from tests.service.fhir import fhir_rows as F
from tests.service.fhir.fhir_rows import Json

LAST = "Provider Last Name (Legal Name)"


@pytest.fixture
def client(api: ApiClient) -> AsyncFHIRClient:
    return AsyncFHIRClient(url=str(api.make_url("/fhir")))


def _plain(resource: Any) -> Json:
    """A fhirpy resource as the JSON the server sent, checked as every resource is."""
    body: Json = resource.serialize()
    F.check_resource(body)
    return body


def _family() -> str:
    """A family name some individuals share and no NPPES "Other" name starts with."""
    return next(
        name
        for name in F.most_common(r[LAST] for r in F.individuals())[5:]
        if not any(F.string_match(F.other_person_names(r), name) for r in F.rows())
    )


def _by_family(value: str) -> set[str]:
    found = {r["NPI"] for r in F.individuals() if F.string_match(F.family_terms(r), value)}
    return found | {
        p.npi for p in F.plan_net_people() if F.string_match(F.terms([p.family]), value)
    }


async def test_search_by_family_through_every_page(client: AsyncFHIRClient) -> None:
    family = _family()
    expected = _by_family(family)
    assert len(expected) > 3
    found = await client.resources("Practitioner").search(family=family).limit(3).fetch_all()
    assert sorted(_plain(r)["id"] for r in found) == sorted(expected)
    assert await client.resources("Practitioner").search(family=family).count() == len(expected)


async def test_chained_search_by_city(client: AsyncFHIRClient) -> None:
    cities = F.most_common(F.place(r).city for r in F.individuals())
    city = next(c for c in cities[2:] if not F.elsewhere("address-city", c))
    expected = {
        r["NPI"]
        for r in F.individuals()
        if F.string_match(F.place_terms("address-city", F.place(r)), city)
    }
    search = client.resources("PractitionerRole").search(**{"location.address-city": city.lower()})
    found = await search.limit(100).fetch_all()
    assert sorted(_plain(r)["id"] for r in found) == sorted(expected)


async def test_include_brings_the_practitioners_and_locations(client: AsyncFHIRClient) -> None:
    code = "207RC0200X"  # critical care: under a page of 100 practitioners
    expected = {r["NPI"] for r in F.individuals() if code in F.codes(r)}
    expected |= {p.npi for p in F.plan_net_people() if code in p.codes}
    search = (
        client.resources("PractitionerRole")
        .search(specialty=f"{F.NUCC_SYSTEM}|{code}")
        .include("PractitionerRole", "practitioner")
        .include("PractitionerRole", "location")
        .limit(100)
    )
    # fetch_all keeps the searched type only: the included resources are in the raw Bundle.
    bundle = await search.fetch_raw()
    assert not [link for link in bundle["link"] if link["relation"] == "next"]
    found = [_plain(entry["resource"]) for entry in bundle["entry"]]
    modes = {
        (r["resourceType"], e["search"]["mode"])
        for r, e in zip(found, bundle["entry"], strict=True)
    }
    assert modes == {
        ("PractitionerRole", "match"),
        ("Practitioner", "include"),
        ("Location", "include"),
    }
    by_type: dict[str, set[str]] = {}
    for resource in found:
        by_type.setdefault(resource["resourceType"], set()).add(resource["id"])
    roles = [r for r in found if r["resourceType"] == "PractitionerRole"]
    assert {F.practitioner_of(r) for r in roles} == by_type["Practitioner"] == expected
    wanted = {loc["reference"].removeprefix("Location/") for r in roles for loc in r["location"]}
    assert by_type["Location"] == wanted


async def test_read_by_reference(client: AsyncFHIRClient) -> None:
    row = F.individuals()[9]
    practitioner = _plain(await client.reference("Practitioner", row["NPI"]).to_resource())
    assert practitioner["name"][0]["family"] == row[LAST]
    role = _plain(await client.reference("PractitionerRole", row["NPI"]).to_resource())
    [ref] = role["location"]
    location = _plain(await client.reference(reference=ref["reference"]).to_resource())
    assert F.location_key(location) == F.place(row).key
    listed = F.plan_net_people()[0]
    plan_net = _plain(await client.resources("Practitioner").search(_id=listed.npi).get())
    assert plan_net["name"][0]["family"] == listed.family


async def test_location_search_by_organization(client: AsyncFHIRClient) -> None:
    org = F.organizations()[30]
    bundle = await (
        client.resources("Location")
        .search(organization=f"Organization/{org['NPI']}")
        .include("Location", "organization")
        .fetch_raw()
    )
    resources = [_plain(entry["resource"]) for entry in bundle["entry"]]
    [location] = [r for r in resources if r["resourceType"] == "Location"]
    [organization] = [r for r in resources if r["resourceType"] == "Organization"]
    assert F.location_key(location) == F.place(org).key
    assert organization["id"] == org["NPI"]


async def test_the_client_s_errors(client: AsyncFHIRClient, api: ApiClient) -> None:
    with pytest.raises(ResourceNotFound):
        await client.reference("Practitioner", "1234567893").to_resource()
    with pytest.raises(OperationOutcome) as refused:
        await client.resources("Practitioner").search(_lastUpdated="yesterday").fetch()
    assert "_lastUpdated" in str(refused.value)
    wrong = AsyncFHIRClient(url=str(api.make_url("/fhir")), authorization="Bearer not-a-token")
    with pytest.raises(AuthorizationError):
        await wrong.resources("Practitioner").limit(1).fetch()
