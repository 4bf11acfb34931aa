"""Chains from what the search index serves (PractitionerRoles, OrganizationAffiliations) to the
networks and payers built from the plans index (service.fhir.search.chain_table's ``plans``
route), on a real Elasticsearch: expectations from the Plan Finder file and the coverage file,
as plain CSV."""

from __future__ import annotations

import csv

from core.documents import Json
from tests.conftest import SAMPLE_DIR, SAMPLE_TODAY, ApiClient
from tests.plan_net_rows import NETWORK_EXTENSION, resources
from tests.service.fhir import fhir_rows as F
from tests.source_rows import canonical_bid, coverage_rows, in_force

PLANS_FILE = SAMPLE_DIR / "medicare_plan_finder_2026_plans.csv"
YEAR = 2026
ORG_TYPES = "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/OrgTypeCS"


def _plan_rows() -> list[dict[str, str]]:
    with open(PLANS_FILE, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _network(bid: str) -> str:
    """The network Organization of a plan year: ``network-<year>-<bid id>``."""
    return f"network-{YEAR}-{canonical_bid(bid).replace('_', '-')}"


def _members(entity: str) -> dict[str, set[str]]:
    """Network id -> the active NPIs of ``entity`` ("1", "2") in network on the tests' day."""
    kinds = {r["NPI"]: r["Entity Type Code"] for r in F.rows()}
    members: dict[str, set[str]] = {}
    for row in coverage_rows(SAMPLE_DIR):
        wanted = row["network_status"] == "in_network" and kinds.get(row["npi"]) == entity
        if wanted and in_force(row, SAMPLE_TODAY):
            members.setdefault(_network(row["bid_id"]), set()).add(row["npi"])
    return members


def _contract(entity: str) -> tuple[str, set[str], set[str]]:
    """A Plan Finder contract whose networks have members of ``entity`` and none of the
    Plan-Net export's plans (whose roles join them too): the contract, its networks, and their
    members."""
    exported = {
        canonical_bid(i["value"]).partition("_")[0]
        for plan in resources("InsurancePlan")
        for i in plan.get("identifier", [])
        if i.get("system", "").endswith("ma-plan-id")
    }
    members = _members(entity)
    contracts = sorted({r["contract_id"] for r in _plan_rows()} - exported)
    for contract in contracts:
        networks = {_network(r["bid_id"]) for r in _plan_rows() if r["contract_id"] == contract}
        found = set().union(*(members.get(n, set()) for n in networks))
        if found:
            return contract, networks, found
    raise AssertionError("the sample has a contract with members")


def _networks_of(resource: Json) -> set[str]:
    refs = [
        e["valueReference"] for e in resource.get("extension", []) if e["url"] == NETWORK_EXTENSION
    ]
    return {
        r["reference"].removeprefix("Organization/") for r in [*refs, *resource.get("network", [])]
    }


async def test_roles_found_by_their_networks_payer_and_type(api: ApiClient) -> None:
    contract, networks, npis = _contract("1")
    payer = [("network.partof", f"Organization/payer-{contract}")]
    for asked in (payer, [*payer, ("network.type", f"{ORG_TYPES}|ntwk")]):
        roles = F.entries(await F.walk(api, "PractitionerRole", asked))
        assert {F.practitioner_of(r) for r in roles} == npis
        assert all(_networks_of(r) <= networks and _networks_of(r) for r in roles)
    assert await F.found_ids(api, "PractitionerRole", [*payer, ("network.type", "payer")]) == []
    # The directory's networks are its plans': they have no address (the export's do).
    city = next(
        a["city"] for o in resources("Organization") for a in o.get("address", []) if a.get("city")
    )
    assert await F.found_ids(api, "PractitionerRole", [("network.address", city)]) == []


async def test_affiliations_found_by_their_networks_payer_and_name(api: ApiClient) -> None:
    contract, networks, npis = _contract("2")
    asked = [("network.partof", f"Organization/payer-{contract}")]
    affiliations = F.entries(await F.walk(api, "OrganizationAffiliation", asked))
    assert {a["id"] for a in affiliations} == npis
    members = _members("2")
    row = next(
        r
        for r in _plan_rows()
        if r["plan_name"]
        and _network(r["bid_id"]) in networks
        and members.get(_network(r["bid_id"]))
    )
    same_name = {_network(r["bid_id"]) for r in _plan_rows() if r["plan_name"] == row["plan_name"]}
    expected = set().union(*(members.get(n, set()) for n in same_name))
    named = [("network.name:exact", f"{row['plan_name']} network")]
    assert set(await F.found_ids(api, "OrganizationAffiliation", named)) == expected
