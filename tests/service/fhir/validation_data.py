"""What the FHIR validation tests feed the validator besides what the sample serves: a payer's
export made from the reference export with the cases the sample lacks (a practitioner published
without an NPI and with one that is not ten digits, a provider group with a malformed NPI, the
overlay of a payer's directory on NPPES providers), and the known-bad canaries, each with the
errors it must produce (element path and message).

The ids a directory gives its providers are worked out here from the documented rule (README,
"Kept as the payer published it"), never by the code under test."""

from __future__ import annotations

import copy
import csv
import gzip
import json
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import SAMPLE_DIR
from tests.plan_net_rows import NETWORK_EXTENSION, NPI_SYSTEM, PLAN_NET_DIR, npi_of, resources
from tests.source_rows import active_rows

Json = dict[str, Any]
PLAN_NET = "http://hl7.org/fhir/us/davinci-pdex-plan-net/"
ORG_TYPES = PLAN_NET + "CodeSystem/OrgTypeCS"
NAMESPACE = uuid.UUID("6f1c1f0e-3a52-5b8e-9a34-4f1d2c8b7e10")  # README: the ids' namespace
REFERENCE_SOURCE = "plan-net:ri"  # the reference export as the FHIR tests load it
DATA_QUALITY_NAME = "dq"
DATA_QUALITY_SOURCE = f"plan-net:{DATA_QUALITY_NAME}"
MALFORMED_NPI = "12345-6789"
MALFORMED_ORG_NPI = "ABC"
_NPI = re.compile("[0-9]{10}")


def nppes_file() -> Path:
    [found] = sorted(SAMPLE_DIR.glob("npidata_pfile*.csv*"))
    return found


def provider_key(source: str, resource: Json) -> str:
    """What a directory's provider is served under: its NPI when that is ten digits, else the
    UUID v5 of the directory and the resource's ``Type/id`` (README)."""
    npi = npi_of(resource)
    if npi and _NPI.fullmatch(npi):
        return npi
    reference = f"{resource['resourceType']}/{resource['id']}"
    return str(uuid.uuid5(NAMESPACE, f"provider:{source}:{reference}"))


def reference_providers(
    source: str = REFERENCE_SOURCE, directory: Path = PLAN_NET_DIR
) -> dict[str, Json]:
    """The providers of a payer's export, by default the reference export (its practitioners,
    and its organisations that are no network or payer), by the key each is served under."""
    found: dict[str, Json] = {}
    for kind in ("Practitioner", "Organization"):
        for resource in resources(kind, directory):
            if kind == "Organization" and _kinds(resource) & {"ntwk", "payer"}:
                continue
            found[provider_key(source, resource)] = resource
    return found


def _without(resource: Json, *elements: str) -> Json:
    kept = copy.deepcopy(resource)
    for element in ("meta", "text", *elements):
        kept.pop(element, None)
    return kept


@dataclass(frozen=True)
class DataQualityExport:
    directory: Path  # the payer's export
    nppes: Path  # the NPPES rows of the two providers the export adds to
    without_npi: str  # the key of the practitioner published without an NPI
    malformed: str  # the key of the practitioner whose NPI is not ten digits
    group: str  # the key of the provider group whose NPI is malformed
    overlaid: tuple[str, str]  # the NPIs of the NPPES individual and organisation it adds to

    def keys(self) -> dict[str, str]:
        """The key each provider of the export is served under -> its case."""
        return {
            self.without_npi: "npi_missing",
            self.malformed: "npi_malformed",
            self.group: "npi_malformed",
            **{npi: "overlay" for npi in self.overlaid},
        }


def _first(found: Iterable[Json]) -> Json:
    return min(found, key=lambda r: str(r["id"]))


def _kinds(organization: Json) -> set[str]:
    return {c.get("code") for t in organization.get("type", []) for c in t.get("coding", [])}


def _nppes_subset(source: Path, target: Path) -> tuple[str, str]:
    """The sample's first active individual and organisation (by NPI), alone in an NPPES file."""
    rows = active_rows(source)
    individual = min((r for r in rows if r["Entity Type Code"] == "1"), key=lambda r: r["NPI"])
    organization = min((r for r in rows if r["Entity Type Code"] == "2"), key=lambda r: r["NPI"])
    with gzip.open(source, "rt", encoding="utf-8-sig", newline="") as handle:
        header = next(csv.reader(handle))
    with target.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, header)
        writer.writeheader()
        writer.writerows([individual, organization])
    return individual["NPI"], organization["NPI"]


def data_quality_export(directory: Path, nppes: Path) -> DataQualityExport:
    """A payer's export made from the reference export: its first practitioner (by id) with
    its first role's location, published without an NPI, with one that is not ten digits and
    with the NPI of an individual of the NPPES sample (the export's overlay on an NPPES
    provider); its first provider group with a malformed NPI and with the NPI of an NPPES
    organisation; all in one network of one plan. ``nppes``: where the NPPES rows of the two
    overlaid providers are written (the sample's own file, read)."""
    individual, organization = _nppes_subset(nppes_file(), nppes)
    practitioner = _first(resources("Practitioner"))
    mine = f"Practitioner/{practitioner['id']}"
    role = min(
        (r for r in resources("PractitionerRole") if r.get("location") and r.get("practitioner")),
        key=lambda r: (r["practitioner"]["reference"] != mine, str(r["id"])),
    )
    site_id = role["location"][0]["reference"].removeprefix("Location/")
    site = _first(r for r in resources("Location") if r["id"] == site_id)
    group = _first(r for r in resources("Organization") if "prvgrp" in _kinds(r))
    in_network = {"url": NETWORK_EXTENSION, "valueReference": {"reference": "Organization/net"}}
    person = _without(practitioner, "identifier")
    provider_group = _without(group, "identifier", "endpoint")
    published: list[Json] = [
        {"resourceType": "Organization", "id": "net", "name": "DQ Network", "active": True,
         "type": [{"coding": [{"system": ORG_TYPES, "code": "ntwk"}]}]},
        {"resourceType": "InsurancePlan", "id": "plan", "name": "DQ Plan", "status": "active",
         "identifier": [{"value": "DQ-PLAN"}], "period": {"start": "2026-01-01"},
         "network": [{"reference": "Organization/net"}]},
        _without(site, "managingOrganization", "identifier", "endpoint") | {"id": "site"},
        person | {"id": "no-npi"},
        person | {"id": "malformed", "identifier": [_npi(MALFORMED_NPI)]},
        person | {"id": "overlay", "identifier": [_npi(individual)]},
        provider_group | {"id": "group", "identifier": [_npi(MALFORMED_ORG_NPI)]},
        provider_group | {"id": "overlay-group", "identifier": [_npi(organization)]},
    ]  # fmt: skip
    for who in ("group", "overlay-group"):
        published.append(
            {
                "resourceType": "OrganizationAffiliation",
                "id": f"affiliation-{who}",
                "active": True,
                "participatingOrganization": {"reference": f"Organization/{who}"},
                "network": [{"reference": "Organization/net"}],
                "location": [{"reference": "Location/site"}],
            }
        )
    for who in ("no-npi", "malformed", "overlay"):
        published.append(
            _without(role, "identifier", "organization", "healthcareService", "endpoint")
            | {
                "id": f"role-{who}",
                "practitioner": {"reference": f"Practitioner/{who}"},
                "location": [{"reference": "Location/site"}],
                "extension": [in_network],
            }
        )
    directory.mkdir(parents=True, exist_ok=True)
    for kind in sorted({r["resourceType"] for r in published}):
        lines = [json.dumps(r) for r in published if r["resourceType"] == kind]
        (directory / f"{DATA_QUALITY_NAME}_{kind}.ndjson").write_text("\n".join(lines) + "\n")

    def key(reference: str) -> str:
        return str(uuid.uuid5(NAMESPACE, f"provider:{DATA_QUALITY_SOURCE}:{reference}"))

    return DataQualityExport(
        directory,
        nppes,
        key("Practitioner/no-npi"),
        key("Practitioner/malformed"),
        key("Organization/group"),
        (individual, organization),
    )


def _npi(value: str) -> Json:
    return {"system": NPI_SYSTEM, "value": value}


# ---- the canaries: served resources with one thing made wrong ----

NUCC = "http://nucc.org/provider-taxonomy"
ROLE_CODES = PLAN_NET + "CodeSystem/ProviderRoleCS"
UNKNOWN_EXTENSION = "http://example.org/fhir/StructureDefinition/unknown"


@dataclass(frozen=True)
class Canary:
    """A known-bad resource and the errors it must produce, each (element path, message) as
    regular expressions matched whole; no other error may come."""

    name: str
    resource: Json
    expected: tuple[tuple[str, str], ...]


def _made(base: Json, name: str, **changed: Any) -> Json:
    """``base`` renamed, each changed element set (None: removed)."""
    resource = copy.deepcopy(base) | {"id": f"canary-{name}"}
    for element, value in changed.items():
        if value is None:
            resource.pop(element, None)
        else:
            resource[element] = value
    return resource


def _coding(system: str, code: str) -> list[Json]:
    return [{"coding": [{"system": system, "code": code}]}]


def _minimum(path: str, profile: str) -> str:
    return re.escape(
        f"{path}: minimum required = 1, but only found 0 (from {PLAN_NET}StructureDefinition/"
        f"plannet-{profile}|1.1.0)"
    )


def _not_in(name: str, url: str) -> str:
    return (
        re.escape(
            f"None of the codings provided are in the value set '{name}' ({url}), and a coding from"
            " this value set is required) (codes = "
        )
        + ".*"
    )


ROLE_VALUE_SET = ("PractitionerRole Code VS", f"{PLAN_NET}ValueSet/PractitionerRoleVS|1.1.0")
SPECIALTIES = (
    "Individual and Group Specialties",
    f"{PLAN_NET}ValueSet/IndividualAndGroupSpecialtiesVS|1.1.0",
)
GENDER = "http://hl7.org/fhir/administrative-gender"
LANGUAGES = "http://hl7.org/fhir/ValueSet/languages"
_ROLE_CODE = r"PractitionerRole\.code\[0\]"


def canaries(practitioner: Json, role: Json, network: Json) -> list[Canary]:
    """One canary per kind of error, made from served resources that validate (a
    Practitioner, a PractitionerRole with a specialty, a network Organization); the last two
    are the excuses' own: what they excuse elsewhere must not be excused there."""
    unknown = {"url": UNKNOWN_EXTENSION, "valueString": "x"}
    as_string = {"url": NETWORK_EXTENSION, "valueString": "Organization/net"}
    made: list[tuple[str, Json, dict[str, Any], tuple[tuple[str, str], ...]]] = [
        (
            "practitioner-without-identifier", practitioner, {"identifier": None},
            (("Practitioner", _minimum("Practitioner.identifier", "Practitioner")),),
        ),
        (
            "network-without-part-of", network, {"partOf": None},
            (("Organization", _minimum("Organization.partOf", "Network")),),
        ),
        (
            "role-code-not-in-its-code-system", role, {"code": _coding(ROLE_CODES, "xyz")},
            (
                (_ROLE_CODE, re.escape(f"Unknown code '{ROLE_CODES}#xyz'")),
                (_ROLE_CODE, _not_in(*ROLE_VALUE_SET)),
            ),
        ),
        (
            "gender-not-in-its-required-value-set", practitioner, {"gender": "robot"},
            (
                (r"Practitioner\.gender", re.escape(f"Unknown code '{GENDER}#robot'")),
                (
                    r"Practitioner\.gender",
                    re.escape("The value provided ('robot') was not found in the value set "
                              "'AdministrativeGender' (http://hl7.org/fhir/ValueSet/"
                              "administrative-gender|4.0.1), and a code is required") + ".*",
                ),
            ),
        ),
        # A facility's NUCC code where only individual and group specialties are allowed: that
        # NUCC cannot be checked is excused, the value set is checked all the same.
        (
            "specialty-outside-its-value-set", role,
            {"specialty": _coding(NUCC, "261QP2000X")},
            ((r"PractitionerRole\.specialty\[0\]", _not_in(*SPECIALTIES)),),
        ),
        (
            "unknown-extension", practitioner, {"extension": [unknown]},
            (
                (
                    r"Practitioner\.extension\[0\]",
                    re.escape(f"The extension {UNKNOWN_EXTENSION} could not be found so is not"
                              " allowed here"),
                ),
            ),
        ),
        (
            "extension-of-a-type-its-definition-forbids", role, {"extension": [as_string]},
            (
                (
                    r"PractitionerRole\.extension\[0\]",
                    re.escape(f"The Extension '{NETWORK_EXTENSION}' definition allows for the"
                              " types [Reference] but found type string"),
                ),
            ),
        ),
        # The excuses' canaries: NUCC's "unknown code system" where no NUCC value set is bound,
        # and "not in the languages value set" for a code that is no language at all.
        (
            "nucc-code-where-no-nucc-value-set-is-bound", role,
            {"code": _coding(NUCC, "207RC0000X")},
            (
                (
                    _ROLE_CODE,
                    re.escape(f"CodeSystem is unknown and can't be validated: {NUCC} for"
                              f" '{NUCC}#207RC0000X'"),
                ),
                (_ROLE_CODE, _not_in(*ROLE_VALUE_SET)),
            ),
        ),
        (
            "language-that-is-none", practitioner,
            {"communication": _coding("urn:ietf:bcp:47", "zz")},
            (
                (
                    r"Practitioner\.communication\[0\]",
                    re.escape(f'Code "zz" is not in valueset: {LANGUAGES}'),
                ),
            ),
        ),
    ]  # fmt: skip
    return [
        Canary(name, _made(base, name, **changed), expected)
        for name, base, changed, expected in made
    ]
