"""What a whole ``$export`` holds, checked against the files that were loaded (the NPPES sample and
the Plan-Net reference export, read with plain CSV/JSON: tests.source_rows, tests.plan_net_rows),
never against another endpoint: every resource the reference export publishes is in it, field
by field, modulo what README's "FHIR Plan-Net API" says is changed (ids keyed by NPI, plan year
or the directory's name; references rewritten to what /fhir serves, or kept by name; a plan's
one network per plan year; narrative and the payer's meta not passed on), and every provider the
NPPES sample lists is in it as its row says."""

from __future__ import annotations

from collections import Counter
from typing import Any

import orjson
import pytest
from yarl import URL

from core.index_contract import IndexNames
from tests.conftest import ApiClient
from tests.plan_net_rows import (
    NPI_SYSTEM,
    languages,
    npi_of,
    resources,
    role_networks,
    usable_practitioners,
)
from tests.service.fhir import fhir_rows as F
from tests.service.fhir.plan_areas import fips_of, is_county
from tests.service.plans import plan_files
from tests.source_rows import canonical_bid
from tests.source_rows import words as normalize

Json = dict[str, Any]
Exported = dict[str, dict[str, Json]]  # type -> id -> resource
DIRECTORY = "ri"  # the FHIR tests' name of the reference export (conftest.PLAN_NET_NAME)
PUBLISHED = ("HealthcareService", "Endpoint")
PROVIDER_ORGANIZATION_TYPES = {"prov", "fac", "prvgrp", "atyprv"}
GENDERS = {"M": "male", "F": "female"}
NUCC = F.NUCC_SYSTEM
_exports: dict[str, Exported] = {}  # one whole export per served prefix, read once


@pytest.fixture
async def exported(api: ApiClient, served_names: IndexNames) -> Exported:
    if served_names.prefix not in _exports:
        _exports[served_names.prefix] = await _read_export(api)
    return _exports[served_names.prefix]


async def _read_export(api: ApiClient) -> Exported:
    kick_off = await api.get("/fhir/$export", headers={"Prefer": "respond-async"})
    assert kick_off.status == 202, await kick_off.text()
    manifest = await (await api.get(URL(kick_off.headers["Content-Location"]).path)).json()
    found: Exported = {}
    for entry in manifest["output"]:
        response = await api.get(URL(entry["url"]).path)
        assert response.status == 200, await response.text()
        for line in (await response.read()).splitlines():
            resource = orjson.loads(line)
            assert resource["resourceType"] == entry["type"]
            assert resource["id"] not in found.setdefault(entry["type"], {}), resource["id"]
            found[entry["type"]][resource["id"]] = resource
    return found


def _codes(concepts: list[Json], system: str | None = None) -> set[str]:
    return {
        c["code"]
        for concept in concepts
        for c in concept.get("coding", [])
        if system is None or c.get("system") == system
    }


def _official(resource: Json) -> Json:
    names = resource.get("name") or [{}]
    return next((n for n in names if n.get("use") == "official"), names[0])


def _nppes_npis() -> dict[str, F.Row]:
    return {row["NPI"]: row for row in F.rows()}


def _providers() -> tuple[dict[str, Json], set[str]]:
    """The reference export's provider organisations by id, and the ids of those whose NPI
    another one published before (the first read is the one served; README)."""
    found = {
        o["id"]: o
        for o in resources("Organization")
        if len(npi_of(o) or "") == 10 and _codes(o.get("type", [])) & PROVIDER_ORGANIZATION_TYPES
    }
    published = Counter(npi_of(o) for o in found.values())
    return found, {i for i, o in found.items() if published[npi_of(o)] > 1}


async def test_every_practitioner_of_the_reference_export_is_exported_as_published(
    exported: Exported,
) -> None:
    nppes = _nppes_npis()
    served = exported["Practitioner"]
    practitioners = [p for p in usable_practitioners().values() if len(npi_of(p) or "") == 10]
    assert len(practitioners) >= 2000
    for practitioner in practitioners:
        npi = npi_of(practitioner) or ""
        resource = served[npi]
        assert [i["value"] for i in resource["identifier"] if i["system"] == NPI_SYSTEM] == [npi]
        if npi in nppes:  # joined: who it is comes from NPPES
            continue
        published, held = _official(practitioner), _official(resource)
        for part in ("family", "given"):
            assert held.get(part) == published.get(part), (npi, part)
        for part in ("prefix", "suffix"):  # the first of each: what the load keeps
            assert held.get(part, []) == published.get(part, [])[:1], (npi, part)
        assert resource.get("gender") == practitioner.get("gender"), npi
        assert _codes(resource.get("communication", [])) == languages(practitioner), npi
        qualified = _codes([q["code"] for q in practitioner.get("qualification", [])], NUCC)
        assert qualified <= _codes([q["code"] for q in resource["qualification"]], NUCC), npi


async def test_every_provider_organization_of_the_reference_export_is_exported(
    exported: Exported,
) -> None:
    nppes = _nppes_npis()
    organizations, repeated = _providers()
    assert len(organizations) == 53
    for organization_id, organization in organizations.items():
        npi = npi_of(organization) or ""
        resource = exported["Organization"][npi]
        assert _codes(resource["type"]) == {"prvgrp"}  # Plan-Net 1.1.0 has no prov
        if npi not in nppes and organization_id not in repeated:
            assert resource["name"] == organization["name"], npi


def _check_plans(exported: Exported, named: bool) -> None:
    """The reference's plans whose ``ownedBy`` has a display (``named``) or has none."""
    # By identifier: two of the reference's plans share a name (AcmeQHPGold, TestInsurancePlan1).
    plans = {i["value"]: p for p in exported["InsurancePlan"].values() for i in p["identifier"]}
    organizations = exported["Organization"]
    chosen = [p for p in resources("InsurancePlan") if ("display" in p["ownedBy"]) == named]
    assert chosen
    for plan in chosen:
        identifiers = {_bid_or_own(i["value"]) for i in plan.get("identifier", [])} or {plan["id"]}
        served = plans[min(identifiers)]  # one plan year each: the reference's have no period
        assert {i["value"] for i in served["identifier"]} == identifiers
        assert served["name"] == plan["name"]
        assert served["status"] == "active"
        [network] = served["network"]  # the plan year's own network
        assert network["display"] == f"{plan['name']} network"
        organization = organizations[network["reference"].removeprefix("Organization/")]
        assert _codes(organization["type"]) == {"ntwk"}
        assert organization["partOf"] == served["ownedBy"]
        for role in ("ownedBy", "administeredBy"):
            payer = organizations[served[role]["reference"].removeprefix("Organization/")]
            assert _codes(payer["type"]) == {"payer"}
            assert payer["name"] == served[role]["display"] == _owner(plan), plan["id"]


async def test_every_plan_of_the_reference_export_is_exported_with_its_payer_and_network(
    exported: Exported,
) -> None:
    _check_plans(exported, named=True)


async def test_a_plan_whose_owner_has_no_display_is_owned_by_the_organisation_it_names(
    exported: Exported,
) -> None:
    _check_plans(exported, named=False)


def _bid_or_own(value: str) -> str:
    """A bid id (H1234-001-001) is served in its canonical form; a payer's own id as it is."""
    return canonical_bid(value) if "-" in value else value


def _owner(plan: Json) -> str:
    """Who owns a plan: its ``ownedBy`` display, else the name of the organisation it names,
    else (that organisation not kept: its NPI published before by another, README) the
    directory, as for a plan that names no owner."""
    owner = plan["ownedBy"]
    first: dict[str, str] = {}  # NPI -> the id of the organisation read first with it
    kept: dict[str, str] = {}
    for organization in resources("Organization"):
        npi = npi_of(organization)
        if npi is None or first.setdefault(npi, organization["id"]) == organization["id"]:
            kept[f"Organization/{organization['id']}"] = organization["name"]
    return str(owner.get("display") or kept.get(owner["reference"]) or f"plan-net:{DIRECTORY}")


class References:
    """How /fhir serves a reference of the reference export: to what it serves of the resource
    named (a published resource as ``<directory>-<id>``, a provider organisation by its NPI, or
    by an id of its own when it has none), else by name only (a payer, a site)."""

    def __init__(self, exported: Exported) -> None:
        self.exported = exported
        self.providers, self.repeated = _providers()
        self.unkeyed = {
            o["id"]: o
            for o in resources("Organization")
            if o["id"] not in self.providers
            and o.get("name")
            and _codes(o.get("type", [])) & PROVIDER_ORGANIZATION_TYPES
        }

    def check(self, published: Json, served: Json, where: str) -> None:
        kind, _, target = published["reference"].partition("/")
        by_name = "reference" not in served and bool(served["display"])
        if kind in PUBLISHED:
            assert served == {**published, "reference": f"{kind}/{DIRECTORY}-{target}"}, where
        elif kind == "Organization" and target in self.providers:
            npi = npi_of(self.providers[target])
            keyed = served == {**published, "reference": f"Organization/{npi}"}
            assert keyed or (by_name and target in self.repeated), where  # else: the first
        elif kind == "Organization" and target in self.unkeyed:
            organization = self.exported["Organization"][served["reference"].split("/")[1]]
            assert organization["name"] == self.unkeyed[target]["name"], where
        else:
            assert by_name, where

    def same(self, published: Any, served: Any, where: str) -> None:
        """``served`` is ``published`` with its references served as above."""
        if isinstance(published, dict) and "reference" in published:
            self.check(published, served, where)
        elif isinstance(published, dict):
            assert published.keys() == served.keys(), where
            for key, value in published.items():
                self.same(value, served[key], f"{where}.{key}")
        elif isinstance(published, list):
            assert len(published) == len(served), where
            for n, (one, other) in enumerate(zip(published, served, strict=True)):
                self.same(one, other, f"{where}[{n}]")
        else:
            assert published == served, where


@pytest.mark.parametrize("kind", PUBLISHED)
async def test_published_resources_are_exported_as_the_export_gave_them(
    exported: Exported, kind: str
) -> None:
    references = References(exported)
    published = list(resources(kind))
    assert len(exported[kind]) == len(published)
    for resource in published:
        served = exported[kind][f"{DIRECTORY}-{resource['id']}"]
        kept = {k: v for k, v in resource.items() if k not in ("id", "meta", "text")}
        references.same(kept, {k: v for k, v in served.items() if k not in ("id", "meta")}, kind)


async def test_the_places_of_the_reference_export_are_exported_at_their_points(
    exported: Exported,
) -> None:
    """Every site a practitioner's role names, at its published point and street line."""
    practitioners = usable_practitioners()
    sites = {
        place["reference"]
        for role in resources("PractitionerRole")
        if role.get("practitioner", {}).get("reference") in practitioners
        for place in role.get("location", [])
    }
    published = {f"Location/{loc['id']}": loc for loc in resources("Location")}
    served = Counter(
        (loc["address"]["line"][0], loc["position"]["latitude"], loc["position"]["longitude"])
        for loc in exported["Location"].values()
        if "position" in loc and loc["address"].get("line")
    )
    for site in sorted(sites):
        place = published[site]
        point = place["position"]
        assert served[place["address"]["line"][0], point["latitude"], point["longitude"]], site


async def test_every_provider_of_the_nppes_sample_is_exported_as_its_row(
    exported: Exported,
) -> None:
    rows = F.rows()
    roles = [r for r in exported["PractitionerRole"].values()]
    places_of: dict[str, set[str]] = {}
    for role in roles:
        npi = role["practitioner"]["reference"].removeprefix("Practitioner/")
        places_of.setdefault(npi, set()).update(p["reference"] for p in role.get("location", []))
    for location in exported["Location"].values():
        managing = location.get("managingOrganization", {}).get("reference", "")
        if managing:
            places_of.setdefault(managing.removeprefix("Organization/"), set()).add(
                f"Location/{location['id']}"
            )
    for row in rows:
        npi = row["NPI"]
        individual = row["Entity Type Code"] == "1"
        resource = exported["Practitioner" if individual else "Organization"][npi]
        assert [i["value"] for i in resource["identifier"] if i["system"] == NPI_SYSTEM] == [npi]
        if individual:
            name = resource["name"][0]
            assert normalize(name["family"]) == normalize(row["Provider Last Name (Legal Name)"])
            assert normalize(name["given"][0]) == normalize(row["Provider First Name"])
            assert resource.get("gender") == GENDERS.get(row["Provider Sex Code"]), npi
            held = _codes([q["code"] for q in resource.get("qualification", [])], NUCC)
            assert F.codes(row) <= held, npi
        else:
            organization = row["Provider Organization Name (Legal Business Name)"]
            assert normalize(resource["name"]) == normalize(organization), npi
        practice = F.place(row)
        at = {
            F.location_key(exported["Location"][ref.removeprefix("Location/")])
            for ref in places_of.get(npi, set())
        }
        assert (practice.line1, practice.zip) in at, npi


async def test_a_listed_practitioner_has_a_role_per_plan_year_of_its_networks(
    exported: Exported,
) -> None:
    """Its roles' networks, as the plans that use them (one role per plan year, README)."""
    nppes = _nppes_npis()
    practitioners = {
        ref: p
        for ref, p in usable_practitioners().items()
        if len(npi_of(p) or "") == 10 and npi_of(p) not in nppes
    }
    networks: dict[str, set[str]] = {}
    for role in resources("PractitionerRole"):
        ref = role.get("practitioner", {}).get("reference", "")
        networks.setdefault(ref, set()).update(role_networks(role))
    plans = list(resources("InsurancePlan"))
    served = Counter(
        r["practitioner"]["reference"].removeprefix("Practitioner/")
        for r in exported["PractitionerRole"].values()
    )
    for ref, practitioner in practitioners.items():
        years = [p for p in plans if networks.get(ref, set()) & _networks_of(p)]
        assert served[npi_of(practitioner) or ""] == max(1, len(years)), ref


def _networks_of(plan: Json) -> set[str]:
    return {network["reference"] for network in plan.get("network", [])}


async def test_the_counties_plans_are_sold_in_are_exported_as_locations(
    exported: Exported,
) -> None:
    """Each county a plan names (its ``coverageArea``) is a Location of the export, and those
    are all its counties; among them every county code the ZIP file gives a plan of the plans
    file (tests.service.fhir.plan_areas works out the others, at a cost too high here)."""
    counties = {i: loc for i, loc in exported["Location"].items() if is_county(loc)}
    named = {
        area["reference"].removeprefix("Location/")
        for plan in exported["InsurancePlan"].values()
        for area in plan.get("coverageArea", [])
    }
    assert counties and set(counties) == named
    plans = plan_files.plans()
    given = {
        r["fips"]
        for r in plan_files.zip_rows()
        if r["fips"] and plan_files.bid(r["bid_id"]) in plans
    }
    assert given and given <= {fips_of(county) for county in counties.values()}
