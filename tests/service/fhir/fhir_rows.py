"""What the FHIR tests expect, read from the source files with plain CSV/JSON (the NPPES sample,
the Doctors & Clinicians files, the NUCC table and the Plan-Net export), never through the
indexer; and how the tests read the API: every resource seen is checked against FHIR R4B and the
Plan-Net profile basics it fills, and searches are walked page by page through ``next`` links."""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from fhir.resources.R4B import get_fhir_model_class
from yarl import URL

from core.plan_net_codes import NETWORK_REFERENCE
from service.fhir.models import RESOURCE_TYPES
from tests.conftest import SAMPLE_DIR, ApiClient
from tests.plan_net_rows import npi_of, resources, usable_practitioners
from tests.source_rows import active_rows, taxonomies
from tests.source_rows import words as normalize

Row = dict[str, str]
Json = dict[str, Any]
Pairs = list[tuple[str, str]]
NPPES = SAMPLE_DIR / "npidata_pfile_sample.csv.gz"
PRACTICE = "Provider Business Practice Location Address"
NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi"
NUCC_SYSTEM = "http://nucc.org/provider-taxonomy"
PLAN_NET_PROFILE = "http://hl7.org/fhir/us/davinci-pdex-plan-net/StructureDefinition/plannet-"
DATA_ABSENT = "http://hl7.org/fhir/StructureDefinition/data-absent-reason"
FHIR_CONTENT_TYPE = "application/fhir+json"
QUALITY_SYSTEM = "urn:provider-directory:data-quality"  # README, "FHIR Plan-Net API"
# The Doctors & Clinicians layouts of the sample: file -> its line 1, line 2, city, state, ZIP.
DAC_FILES = {
    "dac_2021_layout.csv": ("adr_ln_1", "adr_ln_2", "cty", "st", "zip"),
    "dac_me_reduced.csv": ("Address", "", "City/Town", "State", "ZIP Code"),
    "physician_compare_2017_layout.csv": (
        "Line 1 Street Address",
        "Line 2 Street Address",
        "City",
        "State",
        "Zip Code",
    ),
}


# ---- the NPPES sample ----


@cache
def rows() -> tuple[Row, ...]:
    return tuple(active_rows(NPPES))


def individuals() -> list[Row]:
    return [r for r in rows() if r["Entity Type Code"] == "1"]


def organizations() -> list[Row]:
    return [r for r in rows() if r["Entity Type Code"] == "2"]


@cache
def row_by_npi() -> dict[str, Row]:
    return {r["NPI"]: r for r in rows()}


def row_of(npi: str) -> Row:
    return row_by_npi()[npi]


@dataclass(frozen=True)
class Place:
    """A practice address as NPPES writes it (ZIP as digits, 5 or 9)."""

    line1: str
    line2: str
    city: str
    state: str
    zip: str

    @property
    def key(self) -> tuple[str, str]:
        """How a Location is told apart in the tests: its first line and ZIP digits."""
        return self.line1, self.zip


def place(row: Row) -> Place:
    return Place(
        row["Provider First Line Business Practice Location Address"],
        row["Provider Second Line Business Practice Location Address"],
        row[f"{PRACTICE} City Name"],
        row[f"{PRACTICE} State Name"],
        row[f"{PRACTICE} Postal Code"],
    )


def location_key(resource: Json) -> tuple[str, str]:
    address = resource["address"]
    return address["line"][0], address.get("postalCode", "").replace("-", "")


def terms(values: Iterable[str]) -> list[str]:
    return [n for v in values if v and (n := normalize(v))]


def family_terms(row: Row) -> list[str]:
    return terms([row["Provider Last Name (Legal Name)"]])


def given_terms(row: Row) -> list[str]:
    return terms([row["Provider First Name"], row["Provider Middle Name"]])


def name_terms(row: Row) -> list[str]:
    """The official name: each part, the whole name (also without the middle name, as people
    type it), and an organisation's names."""
    person = [row[f"Provider {p}"] for p in ("First Name", "Middle Name")]
    person.append(row["Provider Last Name (Legal Name)"])
    first_last = (row["Provider First Name"], row["Provider Last Name (Legal Name)"])
    return terms(
        [
            " ".join(p for p in person if p),
            " ".join(p for p in first_last if p),
            *person,
            row["Provider Name Prefix Text"],
            row["Provider Name Suffix Text"],
            row["Provider Organization Name (Legal Business Name)"],
            row["Provider Other Organization Name"],
        ]
    )


def other_person_names(row: Row) -> list[str]:
    """Names a person had before (NPPES "Other" names), not part of the resource's name."""
    return terms([row["Provider Other First Name"], row["Provider Other Last Name"]])


def address_terms(at: Place) -> list[str]:
    return terms([at.line1, at.line2, at.city, at.state, at.zip, at.zip[:5]])


def string_match(held: Iterable[str], value: str, modifier: str | None = None) -> bool:
    """FHIR string search as the API documents it, on normalised terms: one starts with the
    value, or (``:exact``) is it, or (``:contains``) contains it, ignoring case and accents."""
    wanted = normalize(value)
    if modifier == "exact":
        return wanted in held
    if modifier == "contains":
        return any(wanted in t for t in held)
    return any(t.startswith(wanted) for t in held)


def codes(row: Row) -> set[str]:
    return set(taxonomies(row))


def most_common(values: Iterable[str]) -> list[str]:
    return [v for v, _ in Counter(v for v in values if v).most_common()]


# ---- the other sources ----


@cache
def dac_places() -> tuple[tuple[str, Place], ...]:
    """(NPI, address) of every Doctors & Clinicians row."""
    found: list[tuple[str, Place]] = []
    for name, columns in DAC_FILES.items():
        with open(SAMPLE_DIR / name, encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, skipinitialspace=True):
                found.append((row["NPI"].strip(), Place(*(row.get(c, "") for c in columns))))
    return tuple(found)


@cache
def other_places() -> tuple[Place, ...]:
    """Every address of the Doctors & Clinicians files and of the Plan-Net export: a provider
    may have one of them besides its NPPES address, or be listed by Plan-Net alone."""
    found = [at for _, at in dac_places()]
    for kind in ("Location", "Organization", "Practitioner"):
        for resource in resources(kind):
            addresses = resource.get("address") or []
            for address in addresses if isinstance(addresses, list) else [addresses]:
                lines = [*address.get("line", []), "", ""]
                parts = (address.get(k, "") for k in ("city", "state", "postalCode"))
                found.append(Place(lines[0], lines[1], *parts))
    return tuple(found)


def place_terms(param: str, at: Place) -> list[str]:
    """What a Location address parameter (or its PractitionerRole chain) matches of a place."""
    name = param.removeprefix("location.")
    if name == "address-city":
        return terms([at.city])
    if name == "address-state":
        return terms([at.state])
    if name == "address-postalcode":
        return terms([at.zip, at.zip[:5]])
    return address_terms(at)


def elsewhere(param: str, value: str, modifier: str | None = None) -> bool:
    """Whether an address of another source matches: a test that asks for an exact answer
    from the NPPES sample alone picks a value for which this is false."""
    return any(string_match(place_terms(param, at), value, modifier) for at in other_places())


@dataclass(frozen=True)
class Listed:
    """A practitioner only the Plan-Net export lists, as its file says."""

    npi: str
    family: str
    given: tuple[str, ...]
    titles: tuple[str, ...]  # the first prefix and the first suffix
    languages: frozenset[str]
    codes: frozenset[str]  # NUCC codes of its qualifications and of its roles' specialties

    def given_terms(self) -> list[str]:
        """The first given name, and the others as one middle name."""
        return terms([self.given[0] if self.given else "", " ".join(self.given[1:])])

    def name_terms(self) -> list[str]:
        whole = " ".join((*self.given, self.family))
        first_last = " ".join((*self.given[:1], self.family))
        return terms([whole, first_last, *self.given_terms(), self.family, *self.titles])


def _nucc(concepts: Iterable[Json]) -> set[str]:
    return {
        c["code"]
        for concept in concepts
        for c in concept.get("coding", [])
        if c.get("system") == NUCC_SYSTEM
    }


@cache
def plan_net_people() -> tuple[Listed, ...]:
    practitioners = usable_practitioners()
    role_codes: dict[str, set[str]] = {}
    for role in resources("PractitionerRole"):
        ref = role.get("practitioner", {}).get("reference", "")
        role_codes.setdefault(ref, set()).update(_nucc(role.get("specialty", [])))
    found = []
    for ref, resource in practitioners.items():
        names = resource.get("name") or [{}]
        name = next((n for n in names if n.get("use") == "official"), names[0])
        spoken = {
            c["code"] for item in resource.get("communication", []) for c in item.get("coding", [])
        }
        found.append(
            Listed(
                npi_of(resource) or "",
                name.get("family", ""),
                tuple(name.get("given", [])),
                tuple(t for k in ("prefix", "suffix") for t in name.get(k, [])[:1]),
                frozenset(spoken),
                frozenset(
                    _nucc(q["code"] for q in resource.get("qualification", []) if "code" in q)
                    | role_codes.get(ref, set())
                ),
            )
        )
    return tuple(found)


@cache
def nucc_rows() -> tuple[Row, ...]:
    with open(SAMPLE_DIR / "nucc_taxonomy_251.csv", encoding="utf-8", newline="") as handle:
        return tuple(csv.DictReader(handle))


# ---- what the API answers ----


def _codes_of(concepts: Iterable[Json]) -> set[str]:
    return {c["code"] for concept in concepts for c in concept.get("coding", [])}


def is_provider(organization: Json) -> bool:
    """A provider organisation (OrgTypeCS prvgrp), not a plan's payer or network."""
    return "prvgrp" in _codes_of(organization["type"])


def tags(resource: Json) -> set[str]:
    return {t["code"] for t in resource["meta"].get("tag", []) if t["system"] == QUALITY_SYSTEM}


def _check_npi(resource: Json) -> None:
    """Known by its NPI as published; by an id of its own when the payer published none or one
    that is not 10 digits (then its identifier is the NPI as published, if any)."""
    npis = [i["value"] for i in resource.get("identifier", []) if i["system"] == NPI_SYSTEM]
    if tags(resource) & {"npi_malformed", "npi_missing"}:
        assert len(npis) <= 1 and resource["id"] not in npis
        assert ("npi_missing" in tags(resource)) == (not npis)
    else:
        assert npis == [resource["id"]]
        check_digit_ok = luhn_ok(resource["id"])
        assert ("npi_check_digit_invalid" in tags(resource)) == (not check_digit_ok)


def luhn_ok(npi: str) -> bool:
    """The NPI check digit, computed here: Luhn over "80840" + the NPI."""
    digits = [int(d) for d in "80840" + npi][::-1]
    doubled = [d if i % 2 == 0 else (2 * d - 9 if d > 4 else 2 * d) for i, d in enumerate(digits)]
    return sum(doubled) % 10 == 0


def check_resource(resource: Json) -> None:
    """Valid FHIR R4B, and the Plan-Net basics the resource fills."""
    kind = resource["resourceType"]
    get_fhir_model_class(kind).model_validate(resource)
    network = kind == "Organization" and "ntwk" in _codes_of(resource["type"])
    profile = f"{PLAN_NET_PROFILE}{'Network' if network else kind}"
    assert resource["meta"]["profile"] == [profile], resource["id"]
    assert resource["meta"]["lastUpdated"]
    if kind == "Practitioner":
        _check_npi(resource)
        assert resource["active"] is True
        name = resource["name"][0]
        absent = name.get("_family", {}).get("extension", [{}])[0].get("url")
        assert name.get("family") or absent == DATA_ABSENT
    elif kind == "Organization":  # a provider, or a plan's payer or network
        assert resource["active"] is True and resource["type"] and resource["name"]
        assert resource["partOf"] if network else resource["address"]
        if is_provider(resource):
            _check_npi(resource)
    elif kind == "Location":
        assert resource["status"] == "active" and resource["name"]
    elif kind == "PractitionerRole":
        assert resource["active"] is True
        practitioner_id = resource["practitioner"]["reference"].removeprefix("Practitioner/")
        networks = [e for e in resource.get("extension", []) if e["url"] == NETWORK_REFERENCE]
        assert len(networks) <= 1, resource["id"]  # Plan-Net: one network per role
        if networks:
            assert resource["id"].startswith(f"{practitioner_id}-"), resource["id"]
        else:
            assert resource["id"] == practitioner_id
    elif kind == "OrganizationAffiliation":
        assert resource["active"] is True and resource["network"]
        assert (
            resource["participatingOrganization"]["reference"] == f"Organization/{resource['id']}"
        )
    elif kind == "HealthcareService":
        assert resource["active"] is True and resource["category"]
    elif kind == "Endpoint":
        assert resource["status"] and resource["connectionType"] and resource["address"]
        assert resource["payloadType"]
    elif kind == "InsurancePlan":
        assert resource["status"] == "active" and resource["type"] and resource["name"]
        assert resource["ownedBy"] and resource["administeredBy"]


async def fetch(
    api: ApiClient,
    path: str,
    params: Pairs | None = None,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> Json:
    """One GET of the FHIR API: its status, content type and a checked body."""
    response = await api.get(path, params=params or [], headers=headers or {})
    body: Json = await response.json(content_type=None)
    assert response.status == status, body
    assert response.content_type == FHIR_CONTENT_TYPE and response.charset == "utf-8"
    if status != 200:
        assert body["resourceType"] == "OperationOutcome" and body["issue"][0]["diagnostics"]
    elif body["resourceType"] == "Bundle":
        for entry in body.get("entry", []):
            if entry["search"]["mode"] == "outcome":  # what lenient handling left out
                assert entry["resource"]["resourceType"] == "OperationOutcome"
                continue
            check_resource(entry["resource"])
            kind, rid = entry["resource"]["resourceType"], entry["resource"]["id"]
            assert entry["fullUrl"].endswith(f"/fhir/{kind}/{rid}")
    elif body["resourceType"] in RESOURCE_TYPES:
        check_resource(body)
    return body


async def walk(api: ApiClient, kind: str, params: Pairs, count: int = 100) -> list[Json]:
    """Every page of a search, following ``next`` links."""
    pages = [await fetch(api, f"/fhir/{kind}", [*params, ("_count", str(count))])]
    while nxt := [link["url"] for link in pages[-1]["link"] if link["relation"] == "next"]:
        assert len(pages) < 200, "a search that never ends"
        pages.append(await fetch(api, URL(nxt[0]).path_qs))
    return pages


def entries(pages: list[Json], mode: str = "match") -> list[Json]:
    return [e["resource"] for p in pages for e in p.get("entry", []) if e["search"]["mode"] == mode]


async def found_ids(api: ApiClient, kind: str, params: Pairs, count: int = 100) -> list[str]:
    return [r["id"] for r in entries(await walk(api, kind, params, count))]


def practitioner_of(role: Json) -> str:
    """The id of the Practitioner a PractitionerRole is the role of."""
    return str(role["practitioner"]["reference"]).removeprefix("Practitioner/")


async def roles_of(api: ApiClient, npi: str) -> list[Json]:
    """An individual's roles (one per network, or one in none), each read by its id."""
    pages = await walk(api, "PractitionerRole", [("practitioner", f"Practitioner/{npi}")])
    found = [await fetch(api, f"/fhir/PractitionerRole/{r['id']}") for r in entries(pages)]
    assert found and all(practitioner_of(role) == npi for role in found), npi
    return found
