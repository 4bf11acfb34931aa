"""The searches directory clients rely on: a provider by its NPI identifier, a count without
entries, and what lenient handling left out said in the Bundle. Expected values are read from
the NPPES sample (tests.service.fhir.fhir_rows)."""

from __future__ import annotations

import pytest
from fhir.resources.R4B.bundle import Bundle

from tests.conftest import ApiClient
from tests.service.fhir import fhir_rows as F

NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi"  # the NPI's system, as US Core names it
LAST = "Provider Last Name (Legal Name)"


@pytest.mark.parametrize("form", ["{system}|{npi}", "{npi}"])
async def test_a_practitioner_and_an_organization_by_npi(api: ApiClient, form: str) -> None:
    person, org = F.individuals()[5], F.organizations()[5]
    for kind, row in (("Practitioner", person), ("Organization", org)):
        value = form.format(system=NPI_SYSTEM, npi=row["NPI"])
        assert await F.found_ids(api, kind, [("identifier", value)]) == [row["NPI"]]
    # A practitioner's NPI names no organisation.
    asked = [("identifier", f"{NPI_SYSTEM}|{person['NPI']}")]
    assert await F.found_ids(api, "Organization", asked) == []


@pytest.mark.parametrize("value", ["http://example.org/ids|{npi}", "|{npi}", "0000000000"])
async def test_an_identifier_of_another_system_matches_nothing(api: ApiClient, value: str) -> None:
    npi = F.individuals()[5]["NPI"]
    pages = await F.walk(api, "Practitioner", [("identifier", value.format(npi=npi))])
    assert pages[0]["total"] == 0 and "entry" not in pages[0]


@pytest.mark.parametrize("asked", [("_summary", "count"), ("_count", "0")])
async def test_a_count_without_entries(api: ApiClient, asked: tuple[str, str]) -> None:
    # A common family name no NPPES "Other" name holds (the API may match those or not).
    family = next(
        value.lower()
        for value in F.most_common(r[LAST] for r in F.individuals())
        if not any(F.string_match(F.other_person_names(r), value) for r in F.rows())
    )
    expected = {r["NPI"] for r in F.individuals() if F.string_match(F.family_terms(r), family)} | {
        p.npi for p in F.plan_net_people() if F.string_match(F.terms([p.family]), family)
    }
    bundle = await F.fetch(api, "/fhir/Practitioner", [("family", family), asked])
    Bundle.model_validate(bundle)
    assert "entry" not in bundle
    assert bundle["total"] == len(expected) > 1


async def test_lenient_handling_says_what_it_left_out(api: ApiClient) -> None:
    npi = F.individuals()[5]["NPI"]
    asked = [("identifier", npi), ("birthdate", "1970"), ("_sort", "family")]
    bundle = await F.fetch(api, "/fhir/Practitioner", asked)
    Bundle.model_validate(bundle)
    matches = [e["resource"]["id"] for e in bundle["entry"] if e["search"]["mode"] == "match"]
    assert matches == [npi]
    [outcome] = [e["resource"] for e in bundle["entry"] if e["search"]["mode"] == "outcome"]
    assert [i["severity"] for i in outcome["issue"]] == ["warning", "warning"]
    said = " ".join(i["diagnostics"] for i in outcome["issue"])
    assert "birthdate" in said and "_sort" in said


async def test_strict_handling_refuses_a_parameter_it_does_not_serve(api: ApiClient) -> None:
    strict = {"Prefer": "handling=strict"}
    await F.fetch(api, "/fhir/Practitioner", [("_sort", "family")], status=400, headers=strict)


async def test_networks_by_their_payer_type(api: ApiClient) -> None:
    payer = "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/OrgTypeCS|payer"
    networks = F.entries(await F.walk(api, "Organization", [("partof.type", payer)]))
    assert networks
    assert {r["id"] for r in networks} == set(
        await F.found_ids(api, "Organization", [("partof.type", "payer")])
    )
    for owned_by in {network["partOf"]["reference"] for network in networks}:
        owner = await F.fetch(api, f"/fhir/{owned_by}")  # an Organization typed payer
        assert payer.split("|")[1] in {c["code"] for t in owner["type"] for c in t["coding"]}


async def test_affiliations_by_their_location_organization(api: ApiClient) -> None:
    [first] = F.entries([await F.fetch(api, "/fhir/OrganizationAffiliation", [("_count", "1")])])
    member = first["participatingOrganization"]["reference"]
    found = await F.found_ids(api, "OrganizationAffiliation", [("location.organization", member)])
    assert first["id"] in found
