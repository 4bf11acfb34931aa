"""Plans as InsurancePlans, payers and networks, searched in memory (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from core.documents import Plan
from service.fhir.render.plans import PlanRecord, PlanResources
from service.fhir.search.query_string import read_search
from service.fhir.sources.memory import found_in_memory, network_keys


def _plan(**fields: Any) -> Plan:
    plan: dict[str, Any] = {
        "contractYear": 2026, "bidId": None, "contractId": None, "planId": None,
        "segmentId": None, "payerPlanId": None, "source": "plan-finder", "planName": None,
        "organization": None, "planType": None, "snpType": None, "states": [],
    }  # fmt: skip
    return plan | fields  # type: ignore[return-value]


MEDICARE = _plan(
    bidId="H1234_001_000",
    contractId="H1234",
    planName="Sunny Advantage (HMO)",
    organization="Sunny Health",
)
PAYERS_OWN = _plan(payerPlanId="GoldQHP", source="plan-net:acme", planName="Acme Gold")
MEDICARE_CHANGED, OWN_CHANGED = "2026-11-20T09:30:00Z", "2026-11-21T08:00:05Z"
PLANS = PlanResources([PlanRecord(MEDICARE, MEDICARE_CHANGED), PlanRecord(PAYERS_OWN, OWN_CHANGED)])


def _ids(kind: Any, pairs: list[tuple[str, str]], pool: list[dict[str, Any]]) -> list[str]:
    return [r["id"] for r in found_in_memory(read_search(kind, pairs), pool, PLANS.index)]


def test_a_plan_year_is_a_plan_its_payer_and_its_network() -> None:
    [medicare, _] = PLANS.insurance_plans
    assert medicare["id"] == "2026-H1234_001_000".replace("_", "-")
    assert medicare["ownedBy"]["reference"] == "Organization/payer-H1234"
    assert medicare["network"][0]["reference"] == "Organization/network-2026-H1234-001-000"
    assert medicare["meta"]["lastUpdated"] == MEDICARE_CHANGED
    assert medicare["type"][0]["coding"][0]["code"] == "mediadv"
    network = PLANS.index["Organization/network-2026-H1234-001-000"]
    assert network["partOf"]["reference"] == "Organization/payer-H1234"
    assert network["meta"]["profile"][0].endswith("plannet-Network")


def test_plans_are_found_by_name_identifier_type_and_owner() -> None:
    plans = PLANS.insurance_plans
    assert _ids("InsurancePlan", [("name", "sunny")], plans) == ["2026-H1234-001-000"]
    for written in ("H1234-001-000", "https://www.cms.gov/medicare/ma-plan-id|H1234_001_000"):
        assert _ids("InsurancePlan", [("identifier", written)], plans) == ["2026-H1234-001-000"]
    assert _ids("InsurancePlan", [("identifier", "GoldQHP")], plans) == ["2026-payer-GoldQHP"]
    assert _ids("InsurancePlan", [("type", "mediadv")], plans) == ["2026-H1234-001-000"]
    owned = [("owned-by", "Organization/payer-H1234")]
    assert _ids("InsurancePlan", owned, plans) == ["2026-H1234-001-000"]
    chained = [("administered-by.name", "acme"), ("_lastUpdated", "ge2026-11-21")]
    assert _ids("InsurancePlan", chained, plans) == []  # its payer is named by its source
    assert _ids("InsurancePlan", [("owned-by.name", "plan-net")], plans) == ["2026-payer-GoldQHP"]


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ("gt2026-11-20T09:29:59Z", ["2026-H1234-001-000", "2026-payer-GoldQHP"]),
        ("gt2026-11-20T09:30:00Z", ["2026-payer-GoldQHP"]),  # to the second
        ("eq2026-11-20T09:30Z", ["2026-H1234-001-000"]),  # within that minute
        ("eq2026-11-21", ["2026-payer-GoldQHP"]),
        ("ne2026-11-21", ["2026-H1234-001-000"]),
        ("lt2026-11-21T08:00:05Z", ["2026-H1234-001-000"]),
        ("le2026-11-21T08:00:05Z", ["2026-H1234-001-000", "2026-payer-GoldQHP"]),
        ("sa2026-11-21T08:00:04.5Z", ["2026-payer-GoldQHP"]),
        ("eb2026-11-20T04:30:00-05:00", []),  # 09:30 UTC: not before it
    ],
)
def test_last_updated_compares_the_instant_each_plan_changed(value: str, found: list[str]) -> None:
    assert _ids("InsurancePlan", [("_lastUpdated", value)], PLANS.insurance_plans) == found


def test_payers_and_networks_are_told_apart_by_type() -> None:
    organizations = PLANS.organizations
    assert _ids("Organization", [("type", "payer")], organizations) == [
        "payer-H1234",
        "payer-plan-net-acme",
    ]
    networks = _ids("Organization", [("type", "ntwk"), ("partof.name", "sunny")], organizations)
    assert networks == ["network-2026-H1234-001-000"]


def test_network_clauses_resolve_to_plan_years() -> None:
    by_reference = read_search(
        "PractitionerRole", [("network", "Organization/network-2026-H1234-001-000,x")]
    )
    assert network_keys(by_reference, PLANS) == (("2026:H1234_001_000",),)
    by_name = read_search("PractitionerRole", [("network.name", "acme")])
    assert network_keys(by_name, PLANS) == (("2026:payer:GoldQHP",),)


def test_network_chains_ask_the_network_organizations() -> None:
    by_payer = read_search("PractitionerRole", [("network.partof", "Organization/payer-H1234")])
    assert network_keys(by_payer, PLANS) == (("2026:H1234_001_000",),)
    by_type = read_search("OrganizationAffiliation", [("network.partof", "payer-nobody")])
    assert network_keys(by_type, PLANS) == ((),)
