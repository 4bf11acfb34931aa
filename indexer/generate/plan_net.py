"""``provider-indexer generate-plan-net``: a SYNTHETIC payer directory in the HL7 Da Vinci PDex
Plan-Net (FHIR R4) shape, written as a bulk ``$export`` writes it: one NDJSON file per resource
type (``Practitioner.ndjson``, ``Location.ndjson``, ...), one compact resource per line.

Real NPPES rows (their NPIs, names, taxonomies, addresses) become Practitioners and Organizations
with their roles and services; each practice address becomes one Location near its ZIP centroid.
The payer, its networks and plans come first. Network membership, languages, accepting-patients
status, hours and positions are NOT real: each is a seeded hash of the NPI (or address), so the
same inputs and seed give byte-identical files. Memory holds one row and the 8-byte keys of the
addresses seen, whatever the file's size.

Fault injection: ``--faults`` publishes known defects (a deactivated NPI, another person's name,
a moved address, too many locations, a Location without a phone) at given rates and ``--truth``
lists every defect published, so benches can measure how well the trust signals find them
(indexer.generate.plan_net_faults). Without it the export is as before, byte for byte.
"""

from __future__ import annotations

import contextlib
import resource
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from hashlib import blake2b
from pathlib import Path

import orjson

from core.fhir_json import without_empty
from core.plan_net_codes import NPI_SYSTEM
from indexer.generate import plan_net_resources as fhir
from indexer.generate.plan_net_faults import PlanNetFaults, default_truth_path
from indexer.generate.plan_net_locations import Locations, address, organization_name
from indexer.generate.plan_net_resources import Draws, Payer, Resource, base, ref
from indexer.sources.nppes import NppesRecord, read_nppes
from indexer.sources.nucc import read_nucc
from indexer.sources.plans import PLAN_YEAR, read_plans
from indexer.sources.rejects import ignore_rejects
from indexer.write.collector import batch_gc

RESOURCE_TYPES = (
    "Organization", "InsurancePlan", "Location", "Practitioner", "PractitionerRole",
    "HealthcareService", "OrganizationAffiliation", "Endpoint",
)  # fmt: skip
ENDPOINT_PER_MILLE = 100
_DELIVERY = f"{fhir.PLAN_NET}/StructureDefinition/delivery-method"
_CONNECTION_TYPES = "http://terminology.hl7.org/CodeSystem/endpoint-connection-type"
# Fictional bid ids (contract H9xxx) for when no plan file is given.
_FIXED_BIDS = (("H9001-001-000", "HMO"), ("H9001-002-000", "HMO"), ("H9002-001-000", "PPO"))
_ENDPOINT_SLOT = 16  # a Draws slot of an organisation (NPI draws)
# An organisation's HealthcareServiceCategoryCS code by NUCC taxonomy prefix (as for roles);
# anything else (193* groups, a physician's code) is a medical group.
_ORG_CATEGORIES = {
    "261Q": "outpat", "261QU": "urg", "261QM08": "behav", "27": "hosp", "28": "hosp",
    "3336": "pharm", "183": "pharm", "291": "lab", "332": "dme", "335": "dme", "251": "other",
    "251E": "home", "251G": "home", "253Z": "home", "251S": "behav", "31": "other", "32": "behav",
    "34": "trans", "10": "behav", "12": "dent", "152W": "vis", "156F": "vis",
}  # fmt: skip
# Category -> its display, OrganizationAffiliationRoleCS code and display.
_CATEGORIES = {
    "outpat": ("Clinic or Outpatient Facility", "outpatient", "Clinic or Outpatient Facility"),
    "behav": ("Behavioral Health", "behavioral", "Outpatient Behavioral Health Provider"),
    "urg": ("Urgent Care", "urgent", "Urgent Care Center"),
    "hosp": ("Hospital", "hospital", "Hospital"), "pharm": ("Pharmacy", "pharmacy", "Pharmacy"),
    "lab": ("Laboratory", "laboratory", "Laboratory"), "other": ("Other", "other", "Other"),
    "dme": ("DME/Medical Supplies", "dme", "DME/Medical Supplier"),
    "home": ("Home Health", "home", "Home Health Provider"),
    "trans": ("Transportation", "transport", "Transporation Provider"),
    "dent": ("Dental", "group", "Medical Group"), "vis": ("Vision", "group", "Medical Group"),
    "group": ("Medical Group", "group", "Medical Group"),
}  # fmt: skip
_PROVIDER_GROUPS = ("group", "behav", "dent", "vis")  # OrgTypeCS prvgrp; the others are fac


@dataclass(frozen=True)
class PlanNetStats:
    rows: int  # active NPPES rows read
    resources: Mapping[str, int]  # resources written per FHIR resource type
    out_dir: Path
    elapsed_s: float
    peak_rss_mb: float
    truth: Path | None = None  # the truth file, when faults were asked for
    faults: Mapping[str, int] = field(default_factory=dict)  # faults injected per code

    def __str__(self) -> str:
        rate = self.rows / self.elapsed_s if self.elapsed_s else 0.0
        counts = ", ".join(f"{count:,} {kind}" for kind, count in self.resources.items())
        line = (
            f"wrote {counts} to {self.out_dir} from {self.rows:,} NPPES rows in "
            f"{self.elapsed_s:.1f} s ({rate:,.0f} rows/s), peak RSS {self.peak_rss_mb:,.0f} MB"
        )
        if self.truth is None:
            return line
        injected = ", ".join(f"{count:,} {code}" for code, count in self.faults.items())
        return f"{line}; faults injected: {injected}; truth in {self.truth}"


def _medicare_bids(plans: Path | None, seed: int) -> list[tuple[str, str, str]]:
    """Three (bid id, plan name, HMO or PPO): Medicare Advantage plans of the plan file picked by
    the seed, or fixed fictional ones."""
    found = []
    for plan in read_plans(plans, [], ignore_rejects) if plans else []:
        bid = plan["bidId"]
        if bid and bid[0] in "HR":  # S contracts are Part D only
            kind = f"{plan['planName']} {plan['planType']}".upper()
            product = "HMO" if "HMO" in kind else "PPO"
            found.append((bid.replace("_", "-"), plan["planName"] or "", product))
    found.sort(key=lambda plan: blake2b(f"{seed}:{plan[0]}".encode(), digest_size=8).digest())
    fixed = [(bid, "", product) for bid, product in _FIXED_BIDS]
    return [
        (bid, name or f"Medicare Advantage {product} {bid}", product)
        for bid, name, product in (found + fixed)[:3]
    ]


def _organization_resources(
    record: NppesRecord, draws: Draws, payer: Payer, updated: str, location: Resource
) -> list[Resource]:
    """The Organization, its Direct Endpoint (about 10%), its HealthcareService and, when it is in
    a network (about 85%), its OrganizationAffiliation with the payer."""
    npi, name, phones = record.npi, organization_name(record), fhir.telecom(record)
    category = fhir.longest_prefix(_ORG_CATEGORIES, fhir.primary_taxonomy(record), "group")
    category_display, role, role_display = _CATEGORIES[category]
    org = ref("Organization", f"organization-{npi}", name)
    made: list[Resource] = []
    if draws.per_mille(_ENDPOINT_SLOT) < ENDPOINT_PER_MILLE:
        endpoint = base("Endpoint", f"endpoint-{npi}", updated) | {
            "status": "active",
            "connectionType": {"system": _CONNECTION_TYPES, "code": "direct-project"},
            "name": f"{name} Direct Address",
            "managingOrganization": org,
            "contact": phones[:1],
            "payloadType": [fhir.plan_net_concept("EndpointPayloadTypeCS", "NA", "Not Applicable")],
            "address": f"mailto:{npi}@direct.{fhir.slug(name) or npi}.example",
        }
        made.append(without_empty(endpoint))
    kind = ("prvgrp", "Provider Group") if category in _PROVIDER_GROUPS else ("fac", "Facility")
    organization = base("Organization", f"organization-{npi}", updated) | {
        "identifier": [{"use": "official", "system": NPI_SYSTEM, "value": npi}],
        "active": True,
        "type": [fhir.plan_net_concept("OrgTypeCS", *kind)],
        "name": name,
        "alias": [record.doing_business_as] if record.doing_business_as else [],
        "telecom": phones,
        "address": [address(record)],
        "endpoint": [ref("Endpoint", f"endpoint-{npi}")] if made else [],
    }
    specialty = fhir.specialties(record, payer.names)
    delivery = fhir.plan_net_concept("DeliveryMethodCS", "physical", "Physical")
    service = base("HealthcareService", f"service-{npi}", updated) | {
        "extension": [
            fhir.newpatients(draws),
            {"url": _DELIVERY, "extension": [{"url": "type", "valueCodeableConcept": delivery}]},
        ],
        "active": True,
        "providedBy": org,
        "category": [
            fhir.plan_net_concept("HealthcareServiceCategoryCS", category, category_display)
        ],
        "specialty": specialty,
        "location": [location],
        "name": name,
        "telecom": phones,
        "availableTime": fhir.hours(draws, "availableStartTime", "availableEndTime"),
    }
    made += [without_empty(organization), without_empty(service)]
    member_of = fhir.networks(draws, payer.networks)
    if member_of:
        affiliation = base("OrganizationAffiliation", f"affiliation-{npi}", updated) | {
            "active": True,
            "organization": payer.ref,
            "participatingOrganization": org,
            "network": member_of,
            "code": [fhir.plan_net_concept("OrganizationAffiliationRoleCS", role, role_display)],
            "specialty": specialty,
            "location": [location],
            "healthcareService": [ref("HealthcareService", f"service-{npi}", name)],
            "telecom": phones,
        }
        made.append(without_empty(affiliation))
    return made


def _updated(record: NppesRecord) -> str:
    day = record.last_update or record.enumeration_date or date(PLAN_YEAR, 1, 1)
    return f"{day.isoformat()}T00:00:00Z"


def generate_plan_net(
    nppes: Path,
    out_dir: Path,
    *,
    seed: int = 1,
    payer: str = "Synthetic Health Plan",
    plans: Path | None = None,
    nucc: Path | None = None,
    faults: Mapping[str, float] | None = None,
    truth: Path | None = None,
) -> PlanNetStats:
    """Write the export of ``nppes`` into ``out_dir`` (``plans``: the Plan Finder plan file the
    Medicare Advantage bid ids come from; ``nucc``: the taxonomy code set that names codes;
    ``faults``: rates per fault kind, recorded in ``truth``, default ``<out_dir>.truth.json``;
    ``truth`` alone injects nothing and records the defects the file has anyway)."""
    if faults is not None or truth is not None:
        truth = truth or default_truth_path(out_dir)
    injection = PlanNetFaults(faults, seed, truth)
    started = time.monotonic()
    names = {code: entry.display_name for code, entry in read_nucc(nucc).items()} if nucc else {}
    out_dir.mkdir(parents=True, exist_ok=True)
    counts = dict.fromkeys(RESOURCE_TYPES, 0)
    rows = 0
    with contextlib.ExitStack() as stack:
        stack.enter_context(batch_gc())
        stack.enter_context(injection.recording())
        files = {
            kind: stack.enter_context(open(out_dir / f"{kind}.ndjson.partial", "wb", 1 << 20))
            for kind in RESOURCE_TYPES
        }

        def write(made: Resource) -> None:
            kind = made["resourceType"]
            files[kind].write(orjson.dumps(made, option=orjson.OPT_APPEND_NEWLINE))
            counts[kind] += 1

        directory, head = fhir.payer_resources(
            payer, _medicare_bids(plans, seed), names, f"{PLAN_YEAR}-01-01T00:00:00Z"
        )
        for made in head:
            write(made)
        locations = Locations(seed, write, injection)
        for record in read_nppes(nppes, ignore_rejects):
            if not isinstance(record, NppesRecord):
                injection.deactivated(record.npi)
                continue
            rows += 1
            updated = _updated(record)
            where = locations.reference(record, updated)
            draws = Draws(seed, record.npi)
            if record.entity_type == "1":
                published, places = injection.practitioner(record, where, updated, locations.new)
                write(fhir.practitioner(published, draws, directory, updated))
                write(fhir.practitioner_role(published, draws, directory, updated, places))
            else:
                resources = _organization_resources(record, draws, directory, updated, where)
                if any(r["resourceType"] == "OrganizationAffiliation" for r in resources):
                    injection.organization(record.npi, where)  # the directory lists it there
                for item in resources:
                    write(item)
            injection.remember(record)
    for kind in RESOURCE_TYPES:
        (out_dir / f"{kind}.ndjson.partial").replace(out_dir / f"{kind}.ndjson")
    return PlanNetStats(
        rows=rows,
        resources=counts,
        out_dir=out_dir,
        elapsed_s=time.monotonic() - started,
        peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        truth=truth,
        faults=injection.injected(),
    )
