"""The FHIR resources /fhir builds from the plans (an InsurancePlan and a network Organization
per plan year, a payer Organization per payer, a Location per county a plan is sold in): their
ids, one rule for the FHIR API and for the updates' removal records, and what removing plans
removes (a payer or a county goes with the last plan that names it)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from core.changes import removal
from core.documents import Json, Plan
from core.fhir_terms import fhir_id
from core.plan_offers import AreaCounty
from core.plans import plan_doc_id_of
from core.published_documents import Removal


def insurance_plan_id(plan: Plan) -> str:
    return fhir_id(plan_doc_id_of(plan))


def payer_id(plan: Plan) -> str:
    return fhir_id("payer-" + (plan["contractId"] or plan["organization"] or plan["source"]))


def network_id(key: str) -> str:
    """The network Organization of a plan year (``core.plans.plan_doc_id``)."""
    return fhir_id(f"network-{key}")


def county_location_id(fips: str) -> str:
    return f"county-{fips}"


def plan_counties(plan: Plan) -> list[AreaCounty]:
    """Where a Plan Finder plan is sold (its stored service area); none for a payer's."""
    area = cast(Json, plan).get("serviceArea") or {}
    return list(area.get("counties", []))


def _resources(plans: Iterable[Plan]) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for plan in plans:
        found |= {
            ("InsurancePlan", insurance_plan_id(plan)),
            ("Organization", network_id(plan_doc_id_of(plan))),
            ("Organization", payer_id(plan)),
        }
        found |= {("Location", county_location_id(c["fips"])) for c in plan_counties(plan)}
    return found


def plans_removals(
    before: Iterable[Plan], after: Iterable[Plan], at: str
) -> tuple[list[tuple[str, Removal]], list[str]]:
    """What rewriting the plans (all of them, ``before`` and ``after``) removed, as removal
    records, and the ids of the resources back again (their removal records no longer hold)."""
    was, now = _resources(before), _resources(after)
    removed = [removal(kind, resource_id, at) for kind, resource_id in sorted(was - now)]
    back = [f"{kind}/{resource_id}" for kind, resource_id in sorted(now - was)]
    return removed, back
