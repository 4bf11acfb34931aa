"""InsurancePlans, payers, networks and who is in them, on a real Elasticsearch: expectations
from the Plan Finder file, the coverage file and the Plan-Net export, read as plain CSV/JSON."""

from __future__ import annotations

import csv
from collections import Counter

from core.documents import Json
from tests.conftest import SAMPLE_DIR, SAMPLE_TODAY, ApiClient
from tests.plan_net_rows import resources
from tests.service.fhir import fhir_rows as F
from tests.source_rows import canonical_bid, coverage_rows, in_force

PLANS_FILE = SAMPLE_DIR / "medicare_plan_finder_2026_plans.csv"
YEAR = 2026
BID_SYSTEM = "https://www.cms.gov/medicare/ma-plan-id"


def _plan_rows() -> list[dict[str, str]]:
    with open(PLANS_FILE, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _plan_id(bid: str) -> str:
    return f"{YEAR}-{canonical_bid(bid).replace('_', '-')}"


def _members(entity: str) -> dict[str, set[str]]:
    """Plan year network id -> the active NPIs of ``entity`` ("1", "2") the coverage file
    puts in it on the tests' day."""
    kinds = {r["NPI"]: r["Entity Type Code"] for r in F.rows()}
    members: dict[str, set[str]] = {}
    for row in coverage_rows(SAMPLE_DIR):
        if row["network_status"] != "in_network" or kinds.get(row["npi"]) != entity:
            continue
        if in_force(row, SAMPLE_TODAY):
            network = "network-" + _plan_id(row["bid_id"])
            members.setdefault(network, set()).add(row["npi"])
    return members


async def test_every_plan_is_an_insurance_plan_of_its_payer(api: ApiClient) -> None:
    plans = F.entries(await F.walk(api, "InsurancePlan", []))
    served = {p["id"]: p for p in plans}
    rows = _plan_rows()
    for row in rows:
        plan = served[_plan_id(row["bid_id"])]
        named = row["plan_name"] or plan["id"]  # a plan without a name is called by its id
        assert plan["name"] and named.startswith(plan["name"])
        assert plan["ownedBy"]["reference"] == f"Organization/payer-{row['contract_id']}"
    exported = list(resources("InsurancePlan"))
    names = {p["name"] for p in plans}
    assert {p["name"] for p in exported} <= names
    bid_keys = {canonical_bid(r["bid_id"]) for r in rows}
    exported_bids = {
        canonical_bid(i["value"])
        for p in exported
        for i in p.get("identifier", [])
        if i.get("system") == "https://www.cms.gov/medicare/ma-plan-id"
    }
    assert len(plans) == len(bid_keys | exported_bids) + sum(
        1
        for p in exported
        if not any("ma-plan-id" in i.get("system", "") for i in p.get("identifier", []))
    )


async def test_a_plan_is_found_by_identifier_name_and_payer(api: ApiClient) -> None:
    row = _plan_rows()[0]
    for written in (row["bid_id"], canonical_bid(row["bid_id"])):
        found = await F.found_ids(api, "InsurancePlan", [("identifier", written)])
        assert found == [_plan_id(row["bid_id"])]
    same_contract = {
        _plan_id(r["bid_id"]) for r in _plan_rows() if r["contract_id"] == row["contract_id"]
    }
    owned = [("owned-by", f"Organization/payer-{row['contract_id']}")]
    assert set(await F.found_ids(api, "InsurancePlan", owned)) == same_contract
    by_payer_name = [("administered-by.name", row["organization"])]
    named = {
        _plan_id(r["bid_id"])
        for r in _plan_rows()
        if r["organization"].lower().startswith(row["organization"].lower())
    }
    assert set(await F.found_ids(api, "InsurancePlan", by_payer_name)) == named
    included = await F.walk(api, "InsurancePlan", [*owned, ("_include", "InsurancePlan:owned-by")])
    assert [r["id"] for r in F.entries(included, "include")] == [f"payer-{row['contract_id']}"]


async def test_payers_and_networks_are_organizations_told_apart_by_type(api: ApiClient) -> None:
    payers = set(await F.found_ids(api, "Organization", [("type", "payer")]))
    assert {f"payer-{r['contract_id']}" for r in _plan_rows()} <= payers
    networks = F.entries(await F.walk(api, "Organization", [("type", "ntwk")]))
    plan_ids = {p["id"] for p in F.entries(await F.walk(api, "InsurancePlan", []))}
    assert {n["id"] for n in networks} == {f"network-{plan}" for plan in plan_ids}
    assert {n["partOf"]["reference"].removeprefix("Organization/") for n in networks} <= payers
    providers = await F.found_ids(api, "Organization", [("type", "prvgrp")])
    assert {r["NPI"] for r in F.organizations()} <= set(providers)
    assert not set(providers) & (payers | {n["id"] for n in networks})


async def test_network_members_are_the_in_network_rowsin_force(api: ApiClient) -> None:
    members = _members("1")
    network, npis = max(members.items(), key=lambda item: (len(item[1]), item[0]))
    assert len(npis) >= 2
    pages = await F.walk(api, "PractitionerRole", [("network", f"Organization/{network}")])
    found = F.entries(pages)
    assert sorted(F.practitioner_of(r) for r in found) == sorted(npis)
    assert all(_networks_of(role) == {f"Organization/{network}"} for role in found)
    pages = await F.walk(
        api,
        "PractitionerRole",
        [("network", network), ("_include", "PractitionerRole:network")],
        count=7,
    )
    assert network in {r["id"] for r in F.entries(pages, "include")}
    said = set().union(*(_networks_of(r) for r in await F.roles_of(api, sorted(npis)[0])))
    expected = {f"Organization/{n}" for n, held in members.items() if sorted(npis)[0] in held}
    assert expected <= said


def _networks_of(role: Json) -> set[str]:
    return {
        e["valueReference"]["reference"]
        for e in role.get("extension", [])
        if e["url"].endswith("/network-reference")
    }


async def test_a_row_out_of_force_leaves_the_network(api: ApiClient) -> None:
    ended = [
        r
        for r in coverage_rows(SAMPLE_DIR)
        if r["network_status"] == "in_network" and not in_force(r, SAMPLE_TODAY)
    ]
    assert ended, "the sample's coverage file has rows that ended or have not begun"
    members = _members("1") | _members("2")
    for row in ended[:5]:
        network = "network-" + _plan_id(row["bid_id"])
        kind = (
            "PractitionerRole"
            if row["npi"] in {r["NPI"] for r in F.individuals()}
            else "OrganizationAffiliation"
        )
        found = await F.found_ids(api, kind, [("network", network), ("_id", row["npi"])])
        assert found == ([row["npi"]] if row["npi"] in members.get(network, set()) else [])


async def test_organizations_in_networks_are_affiliations(api: ApiClient) -> None:
    members = _members("2")
    network, npis = max(members.items(), key=lambda item: (len(item[1]), item[0]))
    found = await F.found_ids(api, "OrganizationAffiliation", [("network", network)])
    assert sorted(found) == sorted(npis)
    every = set(await F.found_ids(api, "OrganizationAffiliation", []))
    assert set().union(*members.values()) <= every
    npi = sorted(npis)[0]
    affiliation = await F.fetch(api, f"/fhir/OrganizationAffiliation/{npi}")
    assert f"Organization/{network}" in {n["reference"] for n in affiliation["network"]}
    revincluded = await F.walk(
        api,
        "Organization",
        [("_id", npi), ("_revinclude", "OrganizationAffiliation:participating-organization")],
    )
    assert [(r["resourceType"], r["id"]) for r in F.entries(revincluded, "include")] == [
        ("OrganizationAffiliation", npi)
    ]
    individuals = Counter(r["NPI"] for r in F.individuals())
    outside = next(n for n in individuals if n not in every)
    await F.fetch(api, f"/fhir/OrganizationAffiliation/{outside}", status=404)


async def test_network_name_chains_to_the_plans_name(api: ApiClient) -> None:
    members = _members("1")
    network, _ = max(members.items(), key=lambda item: (len(item[1]), item[0]))
    plan = await F.fetch(api, f"/fhir/InsurancePlan/{network.removeprefix('network-')}")
    same_name = {
        "network-" + _plan_id(r["bid_id"]) for r in _plan_rows() if r["plan_name"] == plan["name"]
    }
    expected = set().union(*(members.get(n, set()) for n in same_name))
    pages = await F.walk(
        api, "PractitionerRole", [("network.name:exact", f"{plan['name']} network")]
    )
    assert sorted({F.practitioner_of(r) for r in F.entries(pages)}) == sorted(expected)


async def test_networks_and_payers_bring_their_members_and_plans(api: ApiClient) -> None:
    members = _members("1")
    network, npis = max(members.items(), key=lambda item: (len(item[1]), item[0]))
    pages = await F.walk(
        api, "Organization", [("_id", network), ("_revinclude", "PractitionerRole:network")]
    )
    roles = [r for r in F.entries(pages, "include") if r["resourceType"] == "PractitionerRole"]
    assert {F.practitioner_of(r) for r in roles} == npis
    assert all(_networks_of(role) == {f"Organization/{network}"} for role in roles)
    contract = _plan_rows()[0]["contract_id"]
    pages = await F.walk(
        api,
        "Organization",
        [("_id", f"payer-{contract}"), ("_revinclude", "InsurancePlan:owned-by")],
    )
    plans = {r["id"] for r in F.entries(pages, "include")}
    assert plans == {_plan_id(r["bid_id"]) for r in _plan_rows() if r["contract_id"] == contract}


def _hillsborough_plans() -> set[str]:
    """Plans the Plan Finder files sell in Hillsborough County, NH (FIPS 33011): its ZIPs' rows
    (the ZIP file names the county's code) and its rows of the county file."""
    with open(SAMPLE_DIR / "medicare_plan_finder_2026_zip_plan.csv", encoding="utf-8") as handle:
        by_zip = {r["bid_id"] for r in csv.DictReader(handle) if r["fips"] == "33011"}
    with open(SAMPLE_DIR / "medicare_plan_finder_2026_plan_county.csv", encoding="utf-8") as f:
        by_county = {
            r["bid_id"]
            for r in csv.DictReader(f)
            if r["state_dir"] == "NH" and r["county"] == "Hillsborough"
        }
    return {_plan_id(bid) for bid in by_zip | by_county}


async def test_plans_are_found_by_the_counties_they_are_sold_in(api: ApiClient) -> None:
    area = [("coverage-area", "Location/county-33011")]
    assert set(await F.found_ids(api, "InsurancePlan", area)) == _hillsborough_plans()
    pages = await F.walk(api, "InsurancePlan", [*area, ("_include", "InsurancePlan:coverage-area")])
    counties = {r["id"]: r for r in F.entries(pages, "include")}
    assert "county-33011" in counties
    for resource in [*F.entries(pages), *counties.values()]:
        F.check_resource(resource)
    county = counties["county-33011"]
    assert county["name"] == "Hillsborough County, NH"
    assert county["address"] == {"district": "Hillsborough County", "state": "NH", "country": "US"}
    read = await api.get("/fhir/Location/county-33011")
    assert read.status == 200 and (await read.json()) == county
    assert (await api.get("/fhir/Location/county-99999")).status == 404
    in_state = await F.found_ids(api, "InsurancePlan", [("coverage-area.address-state", "NH")])
    assert _hillsborough_plans() <= set(in_state)
