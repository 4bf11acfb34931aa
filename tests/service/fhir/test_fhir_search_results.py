"""The searches directory clients rely on: a provider by its NPI identifier, a count without
entries, and what lenient handling left out said in the Bundle. Expected values are read from
the NPPES sample (tests.service.fhir.fhir_rows)."""

from __future__ import annotations

import pytest
from fhir.resources.R4B.bundle import Bundle

from tests.conftest import ApiClient
from tests.plan_net_rows import resources
from tests.service.fhir import fhir_rows as F
from tests.service.fhir.test_fhir_plans_networks import (
    BID_SYSTEM,
    YEAR,
    _members,
    _plan_id,
    _plan_rows,
)
from tests.source_rows import canonical_bid

NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi"  # the NPI's system, as US Core names it
LAST = "Provider Last Name (Legal Name)"
ORG_TYPE_SYSTEM = "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/OrgTypeCS"


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


def _bid_plans() -> set[tuple[str, str]]:
    """(network id, payer reference) of every plan with a bid id: the Plan Finder file's rows
    and the Plan-Net export's InsurancePlans that carry a CMS plan identifier."""
    found = {
        (f"network-{_plan_id(r['bid_id'])}", f"Organization/payer-{r['contract_id']}")
        for r in _plan_rows()
    }
    for plan in resources("InsurancePlan"):
        for identifier in plan.get("identifier", []):
            if identifier.get("system") == BID_SYSTEM:
                bid = canonical_bid(identifier["value"])
                # Without a period: the plan year the Plan Finder file describes.
                year = plan.get("period", {}).get("start", str(YEAR))[:4]
                network = f"network-{year}-{bid.replace('_', '-')}"
                found.add((network, f"Organization/payer-{bid.split('_')[0]}"))
    return found


async def test_networks_by_their_payer_type(api: ApiClient) -> None:
    payer = f"{ORG_TYPE_SYSTEM}|payer"
    networks = F.entries(await F.walk(api, "Organization", [("partof.type", payer)]))
    said = {(n["id"], n["partOf"]["reference"]) for n in networks}
    assert _bid_plans() <= said
    assert {n["id"] for n in networks} == set(
        await F.found_ids(api, "Organization", [("partof.type", "payer")])
    )
    # "|payer": a type without a system, which no payer has (FHIR token search).
    for asked in (("partof.type", "|payer"), ("type", "|payer")):
        bundle = await F.fetch(api, "/fhir/Organization", [asked, ("_summary", "count")])
        assert bundle["total"] == 0, asked
    payers = await F.found_ids(api, "Organization", [("type", "payer")])
    assert {f"payer-{r['contract_id']}" for r in _plan_rows()} <= set(payers)


async def test_affiliations_by_their_location_organization(api: ApiClient) -> None:
    """An affiliation's locations are its organisation's own, NPPES's address and the Doctors
    and Clinicians sites: an organisation in a network names its own affiliation only."""
    in_networks = sorted(set().union(*_members("2").values()))
    assert len(in_networks) >= 2, "the sample's coverage file puts organisations in networks"
    for npi in in_networks[:5]:
        asked = [("location.organization", f"Organization/{npi}")]
        assert await F.found_ids(api, "OrganizationAffiliation", asked) == [npi]
