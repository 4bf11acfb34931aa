"""The directory's plans as Plan-Net resources (pure): an InsurancePlan per plan year, the payer
Organization that owns it, and the plan's network Organization, which the PractitionerRoles of
the providers with an in-network coverage row of that plan year reference.

The plans index holds a few hundred plans, so these resources are built from all of them and
searched in memory (``service.fhir.sources.memory``) rather than through a query per parameter.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.documents import Plan
from core.plan_net_codes import BID_ID_SYSTEM, CODE_SYSTEMS, ORG_TYPE_SYSTEM, profile
from core.plan_offers import AreaCounty
from core.plan_resources import (
    county_location_id,
    insurance_plan_id,
    network_id,
    payer_id,
    plan_counties,
)
from core.plans import plan_doc_id_of
from core.text import normalize
from service.fhir.models import Resource
from service.fhir.render.elements import DATA_ABSENT, reference

PRODUCT_TYPE_SYSTEM = CODE_SYSTEMS + "InsuranceProductTypeCS"
MEDICARE_ADVANTAGE = ("mediadv", "Medicare Advantage")
PAYER = ("payer", "Payer")
NETWORK = ("ntwk", "Network")
COUNTY_FIPS_SYSTEM = "urn:oid:2.16.840.1.113883.6.93"  # FIPS 6-4 county codes
LOCATION_TYPE_SYSTEM = "http://terminology.hl7.org/CodeSystem/location-physical-type"
JURISDICTION = ("jdn", "Jurisdiction")


@dataclass(frozen=True)
class PlanRecord:
    """A plan as the plans index holds it, and when it last changed in this directory (its
    document's ``changedAt``, core.changes)."""

    plan: Plan
    changed_at: str

    @property
    def key(self) -> str:
        return plan_doc_id_of(self.plan)

    @property
    def id(self) -> str:
        return insurance_plan_id(self.plan)

    @property
    def payer_id(self) -> str:
        return payer_id(self.plan)

    @property
    def payer_name(self) -> str:
        plan = self.plan
        return plan["organization"] or plan["contractId"] or plan["source"]

    @property
    def network_name(self) -> str:
        return f"{self.plan['planName'] or self.id} network"

    @property
    def counties(self) -> list[AreaCounty]:
        return plan_counties(self.plan)


def county_location(county: AreaCounty, changed_at: str) -> Resource:
    """A county a plan is sold in, as a Plan-Net Location (an area, not a practice site)."""
    return {
        "resourceType": "Location",
        "id": county_location_id(county["fips"]),
        "meta": _meta("Location", changed_at),
        "identifier": [{"system": COUNTY_FIPS_SYSTEM, "value": county["fips"]}],
        "status": "active",
        "name": f"{county['name']}, {county['state']}",
        "physicalType": _coding(LOCATION_TYPE_SYSTEM, JURISDICTION),
        "address": {"district": county["name"], "state": county["state"], "country": "US"},
    }


def _meta(name: str, changed_at: str) -> Resource:
    return {"lastUpdated": changed_at, "profile": [profile(name)]}


def _coding(system: str, code_display: tuple[str, str]) -> Resource:
    code, display = code_display
    return {"coding": [{"system": system, "code": code, "display": display}]}


def _absent() -> Resource:
    return {"extension": [{"url": DATA_ABSENT, "valueCode": "unknown"}]}


def insurance_plan(record: PlanRecord) -> Resource:
    plan = record.plan
    identifier = (
        {"system": BID_ID_SYSTEM, "value": plan["bidId"]}
        if plan["bidId"]
        else {"value": plan["payerPlanId"]}
    )
    medicare = plan["source"] == "plan-finder"
    year = plan["contractYear"]
    resource: Resource = {
        "resourceType": "InsurancePlan",
        "id": record.id,
        "meta": _meta("InsurancePlan", record.changed_at),
        "identifier": [identifier],
        "status": "active",
        "type": [_coding(PRODUCT_TYPE_SYSTEM, MEDICARE_ADVANTAGE) if medicare else _absent()],
        "name": plan["planName"] or record.id,
        "period": {"start": f"{year}-01-01", "end": f"{year}-12-31"},
        "ownedBy": reference("Organization", record.payer_id, record.payer_name),
        "administeredBy": reference("Organization", record.payer_id, record.payer_name),
        "network": [reference("Organization", network_id(record.key), record.network_name)],
    }
    if plan["planType"]:
        resource["plan"] = [{"type": {"text": plan["planType"]}}]
    areas = [
        reference("Location", county_location_id(c["fips"]), f"{c['name']}, {c['state']}")
        for c in record.counties
    ]
    if areas:
        resource["coverageArea"] = areas
    return resource


def payer(record: PlanRecord, changed_at: str) -> Resource:
    return {
        "resourceType": "Organization",
        "id": record.payer_id,
        "meta": _meta("Organization", changed_at),
        "active": True,
        "type": [_coding(ORG_TYPE_SYSTEM, PAYER)],
        "name": record.payer_name,
        "address": [_absent()],
    }


def network(record: PlanRecord) -> Resource:
    return {
        "resourceType": "Organization",
        "id": network_id(record.key),
        "meta": _meta("Network", record.changed_at),
        "active": True,
        "type": [_coding(ORG_TYPE_SYSTEM, NETWORK)],
        "name": record.network_name,
        "partOf": reference("Organization", record.payer_id, record.payer_name),
    }


def search_terms(resource: Resource) -> dict[str, list[str]]:
    """What each search parameter matches in one of these resources: normalised strings,
    ``system|code`` and bare codes, ``Type/id`` references, and the last-updated instant."""
    terms: dict[str, list[str]] = {
        "_id": [resource["id"]],
        "_lastUpdated": [resource["meta"]["lastUpdated"]],
        "name": [normalize(resource["name"])],
    }
    codings = [c for t in resource.get("type", []) for c in t.get("coding", [])]
    terms["type"] = [f"{c['system']}|{c['code']}" for c in codings] + [c["code"] for c in codings]
    # A bid id is written H1234-001-000 as often as the canonical H1234_001_000.
    values = [
        (i.get("system", ""), form)
        for i in resource.get("identifier", [])
        for form in dict.fromkeys((i["value"], i["value"].replace("_", "-")))
    ]
    terms["identifier"] = [f"{system}|{value}" for system, value in values] + [
        value for _, value in values
    ]
    for name, element in (
        ("partof", "partOf"),
        ("owned-by", "ownedBy"),
        ("administered-by", "administeredBy"),
    ):
        if element in resource:
            terms[name] = [resource[element]["reference"]]
    terms["coverage-area"] = [area["reference"] for area in resource.get("coverageArea", [])]
    if isinstance(resource.get("address"), dict):  # a county: what its address parameters match
        # (service.fhir.sources.locations's table): its parts, or the whole, as a site's address
        address = resource["address"]
        parts = [normalize(address["district"]), normalize(address["state"])]
        terms["address-state"] = parts[1:]
        terms["address"] = [*parts, " ".join(parts)]
    return terms


def _keep_latest(latest: dict[str, str], key: str, changed_at: str) -> None:
    latest[key] = max(latest.get(key, changed_at), changed_at)  # instants of one format: in order


class PlanResources:
    """The resources of every plan: InsurancePlans, and payers and networks (Organizations),
    and the counties plans are sold in (Locations). A plan's InsurancePlan and network last
    changed when the plan did; a payer and a county when the latest of their plans did."""

    def __init__(self, records: list[PlanRecord]) -> None:
        self.records = records
        self.insurance_plans = [insurance_plan(r) for r in records]
        payer_changes: dict[str, str] = {}
        county_changes: dict[str, str] = {}
        for r in records:
            _keep_latest(payer_changes, r.payer_id, r.changed_at)
            for county in r.counties:
                _keep_latest(county_changes, county["fips"], r.changed_at)
        payers = {r.payer_id: payer(r, payer_changes[r.payer_id]) for r in records}
        self.organizations = [*payers.values(), *(network(r) for r in records)]
        counties = {
            county["fips"]: county_location(county, county_changes[county["fips"]])
            for record in records
            for county in record.counties
        }
        self.areas = sorted(counties.values(), key=lambda county: str(county["id"]))
        self.index: dict[str, Resource] = {
            f"{r['resourceType']}/{r['id']}": r
            for r in (*self.insurance_plans, *self.organizations, *self.areas)
        }
