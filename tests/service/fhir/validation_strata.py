"""Which of the resources /fhir serves the in-suite validation feeds the validator
(tests/service/fhir/test_fhir_validator.py documents the strata), picked from the whole of a
``$export`` of the sample with its Plan-Net reference export.

A resource's *facts* are read from its JSON and from the source files, never from the service:
its type and profile; its *origin*, where the provider it is built from comes from (the NPPES
sample, the reference export, both: the export's overlay on an NPPES provider; the plans; a
payer's published resources); its data-quality tags; the element paths it has (which builder
branches it went through: a gender or none, a licence, hours, a network...); and its codes
(each ``system|code`` and code-typed value with the path it is at)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tests.plan_net_rows import resources
from tests.service.fhir import fhir_rows
from tests.service.fhir.validation_data import reference_providers

Json = dict[str, Any]
NETWORK_EXTENSION = (
    "http://hl7.org/fhir/us/davinci-pdex-plan-net/StructureDefinition/network-reference"
)
# The primitive elements whose values are codes (or canonical URLs a validator resolves).
_CODED = frozenset({"code", "gender", "status", "use", "system", "type", "valueCode", "url"})
_DAYS = "daysOfWeek"
_FHIR_ID = re.compile(r"[A-Za-z0-9\-.]{1,64}")


@dataclass(frozen=True)
class Facts:
    kind: str
    profile: str  # the last part of the Plan-Net profile's name: Organization, Network...
    origin: str  # nppes, plan-net, nppes+plan-net, plans, published; other: another directory
    tags: frozenset[str]
    paths: frozenset[str]  # e.g. Practitioner.qualification.identifier.value
    codes: frozenset[tuple[str, str | None, str]]  # (path, system, code)
    hospital: bool = False  # an NPPES organisation with a hospital taxonomy (NUCC 28...)

    @property
    def stratum(self) -> tuple[object, ...]:
        return (self.kind, self.profile, self.origin, self.tags, self.paths, self.hospital)


def _walk(value: Any, path: str, paths: set[str], codes: set[tuple[str, str | None, str]]) -> None:
    if isinstance(value, dict):
        if isinstance(value.get("code"), str) and "system" in value:  # a Coding
            codes.add((path, value.get("system"), value["code"]))
        for key, item in value.items():
            _walk(item, f"{path}.{key}", paths, codes)
    elif isinstance(value, list):
        for item in value:
            _walk(item, path, paths, codes)
    else:
        paths.add(path)
        name = path.rsplit(".", 1)[-1]
        if isinstance(value, str) and (name in _CODED or name == _DAYS):
            codes.add((path, None, value))


@dataclass
class Origins:
    """Where the provider each resource is built from comes from, by the key it is served under
    (the NPPES sample's NPIs; the reference export's providers: ``reference_providers``)."""

    nppes: dict[str, fhir_rows.Row] = field(default_factory=fhir_rows.row_by_npi)
    reference: dict[str, Json] = field(default_factory=reference_providers)
    owners: dict[str, str] = field(default_factory=dict)  # Location id -> provider key

    def learn(self, pool: Iterable[Json]) -> None:
        """Who each Location belongs to: the roles, affiliations and organisations naming it."""
        for resource in pool:
            kind = resource["resourceType"]
            if kind == "PractitionerRole":
                owner = resource["practitioner"]["reference"].removeprefix("Practitioner/")
            elif kind == "OrganizationAffiliation":
                owner = resource["id"]
            else:
                continue
            for place in resource.get("location", []):
                self.owners[place["reference"].removeprefix("Location/")] = owner
        for resource in pool:
            managing = resource.get("managingOrganization", {}).get("reference", "")
            if resource["resourceType"] == "Location" and managing:
                self.owners[resource["id"]] = managing.removeprefix("Organization/")

    def key_of(self, resource: Json) -> str | None:
        """The key of the provider the resource is built from (None: not a provider's)."""
        kind, profile = resource["resourceType"], _profile(resource)
        if kind in ("Practitioner", "OrganizationAffiliation"):
            return str(resource["id"])
        if kind == "Organization" and _is_provider(resource):
            return str(resource["id"])
        if kind == "PractitionerRole":
            return str(resource["practitioner"]["reference"].removeprefix("Practitioner/"))
        if kind == "Location" and profile == "Location" and not _is_county(resource):
            return self.owners.get(resource["id"])
        return None

    def origin(self, resource: Json) -> str:
        if resource["resourceType"] in ("HealthcareService", "Endpoint"):
            return "published"
        key = self.key_of(resource)
        if key is None:
            return "plans"
        sources = (("nppes", self.nppes), ("plan-net", self.reference))
        return "+".join(name for name, keys in sources if key in keys) or "other"

    def facts(self, resource: Json) -> Facts:
        paths: set[str] = set()
        codes: set[tuple[str, str | None, str]] = set()
        _walk(resource, resource["resourceType"], paths, codes)
        paths.discard(f"{resource['resourceType']}.meta.lastUpdated")
        tags = frozenset(
            t["code"]
            for t in resource["meta"].get("tag", [])
            if t.get("system") == fhir_rows.QUALITY_SYSTEM
        )
        key = self.key_of(resource)
        row = self.nppes.get(key or "")
        hospital = (
            row is not None
            and row["Entity Type Code"] == "2"
            and any(code.startswith("28") for code in fhir_rows.codes(row))
        )
        return Facts(
            resource["resourceType"],
            _profile(resource),
            self.origin(resource),
            tags,
            frozenset(paths),
            frozenset(codes),
            hospital,
        )


def _profile(resource: Json) -> str:
    return str(resource["meta"]["profile"][0]).rsplit("plannet-", 1)[-1]


def _codes_of(resource: Json, element: str) -> set[str]:
    return {c.get("code") for t in resource.get(element, []) for c in t.get("coding", [])}


def _is_provider(organization: Json) -> bool:
    return _profile(organization) == "Organization" and not (
        _codes_of(organization, "type") & {"payer", "ntwk"}
    )


def _is_county(location: Json) -> bool:
    return "jdn" in {c.get("code") for c in location.get("physicalType", {}).get("coding", [])}


def canonical(resource: Json) -> str:
    return json.dumps(resource, sort_keys=True)


def without_network(role: Json) -> str:
    """A role as it is but for its id and the network it names: what a practitioner's roles in
    several networks share (Plan-Net: one network per role)."""
    kept = {k: v for k, v in role.items() if k != "id"}
    kept["extension"] = [e for e in role.get("extension", []) if e["url"] != NETWORK_EXTENSION]
    return canonical(kept)


def network_ids_well_formed(role: Json) -> bool:
    """The id and network reference the validator is not shown for all but one role of a
    practitioner: FHIR ids, as it would check them."""
    networks = [
        e["valueReference"]["reference"]
        for e in role.get("extension", [])
        if e["url"] == NETWORK_EXTENSION
    ]
    return bool(_FHIR_ID.fullmatch(role["id"])) and all(
        ref.startswith("Organization/") and _FHIR_ID.fullmatch(ref.removeprefix("Organization/"))
        for ref in networks
    )


def site_of(location: Json) -> tuple[str, ...]:
    """A Location's site, as a reference Location's address gives it: lines, city, ZIP digits."""
    address = location.get("address", {})
    return (
        *(line.upper() for line in address.get("line", [])),
        str(address.get("city", "")).upper(),
        re.sub("[^0-9]", "", str(address.get("postalCode", ""))),
    )


def reference_sites() -> set[tuple[str, ...]]:
    return {site_of(location) for location in resources("Location")}


def one_per(pool: Iterable[Json], key: Any) -> Iterator[Json]:
    """The first resource of each ``key`` (the pool in id order, so the pick is stable)."""
    seen: set[object] = set()
    for resource in sorted(pool, key=lambda r: str(r["id"])):
        mark = key(resource)
        if mark not in seen:
            seen.add(mark)
            yield resource


def strata(pool: list[Json], origins: Origins, chosen: Iterable[Json] = ()) -> list[Json]:
    """One resource per stratum (type, profile, origin, tags, element paths, hospital), then
    one more for each code (path, system, code) no resource picked so far has: every served
    code is shown to the validator once (a code outside a required binding is an error).
    ``chosen``: resources of the pool picked already (a stratum they meet is met)."""
    facts = {id(r): origins.facts(r) for r in pool}
    had = {id(r) for r in chosen}
    met = {facts[i].stratum for i in had}
    picked = [
        r for r in one_per(pool, lambda r: facts[id(r)].stratum) if facts[id(r)].stratum not in met
    ]
    shown = {
        (facts[i].kind, *code) for i in had | {id(r) for r in picked} for code in facts[i].codes
    }
    for resource in sorted(pool, key=lambda r: str(r["id"])):
        found = facts[id(resource)]
        new = {(found.kind, *code) for code in found.codes} - shown
        if new and id(resource) not in had:
            picked.append(resource)
            shown |= new
    return picked


@dataclass(frozen=True)
class ReferenceServed:
    """The reference export as served: what is picked, and every role of each of its
    practitioners (one each is picked: they differ only in their id and network)."""

    picked: list[Json]
    roles: dict[str, list[Json]]


def _plan_names() -> set[str]:
    """What the reference export's InsurancePlans are known by: their identifiers and ids."""
    plans = list(resources("InsurancePlan"))
    return {str(i["value"]) for p in plans for i in p.get("identifier", [])} | {
        str(p["id"]) for p in plans
    }


def reference_as_served(pool: list[Json], origins: Origins) -> ReferenceServed:
    """For each resource of the reference export, what /fhir serves for it: the Practitioner,
    Organization and OrganizationAffiliation of each of its providers, each HealthcareService
    and Endpoint (published as the export has them), each of its InsurancePlans with its
    network and payer Organizations; the service makes a PractitionerRole per practitioner and
    network and a Location per provider and site: one role per practitioner, one Location per
    site of the export."""
    picked: list[Json] = []
    roles: dict[str, list[Json]] = {}
    plan_names, sites = _plan_names(), reference_sites()
    for resource in pool:
        kind, key = resource["resourceType"], origins.key_of(resource)
        listed = key is not None and key in origins.reference
        named = {str(i["value"]) for i in resource.get("identifier", [])}
        if kind == "PractitionerRole" and listed:
            roles.setdefault(str(key), []).append(resource)
        elif (
            (kind in ("Practitioner", "Organization", "OrganizationAffiliation") and listed)
            or kind in ("HealthcareService", "Endpoint")
            or (kind == "InsurancePlan" and named & plan_names)
        ):
            picked.append(resource)
    planned = {
        ref["reference"]
        for plan in picked
        if plan["resourceType"] == "InsurancePlan"
        for ref in (plan["ownedBy"], plan["administeredBy"], *plan["network"])
    }
    picked += [
        r
        for r in pool
        if r["resourceType"] == "Organization" and f"Organization/{r['id']}" in planned
    ]
    placed = [
        r
        for r in pool
        if r["resourceType"] == "Location"
        and origins.key_of(r) in origins.reference
        and site_of(r) in sites
    ]
    picked += one_per(placed, site_of)
    picked += (min(found, key=lambda r: str(r["id"])) for found in roles.values())
    return ReferenceServed(picked, roles)


def _has(facts: Facts, path: str) -> bool:
    return any(p == path or p.startswith(f"{path}.") for p in facts.paths)


def _coded(facts: Facts, path: str, value: str) -> bool:
    return any(c[0] == path and value in (c[1], c[2]) for c in facts.codes)


def _of(kind: str, profile: str | None = None) -> Callable[[Facts], bool]:
    return lambda f: f.kind == kind and (profile is None or f.profile == profile)


def _provider_group(f: Facts) -> bool:
    return f.profile == "Organization" and f.origin not in ("plans", "published")


_P, _R, _L, _A, _I = (
    _of("Practitioner"),
    _of("PractitionerRole"),
    _of("Location"),
    _of("OrganizationAffiliation"),
    _of("InsurancePlan"),
)
_KEY_SYSTEM = "urn:provider-directory:provider-key"
_NPI = "http://hl7.org/fhir/sid/us-npi"
_TAGS = ("npi_check_digit_invalid", "npi_malformed", "npi_missing")
_PROVIDERS = {"Practitioner": _P, "PractitionerRole": _R, "Location": _L}
_PROVIDERS |= {"Organization": _provider_group, "OrganizationAffiliation": _A}

# The builders' branches, each of which some validated resource must go through.
REQUIRED: dict[str, Callable[[Facts], bool]] = {
    **{
        f"{kind} from {origin}": (lambda o, k: lambda f: k(f) and f.origin == o)(origin, kind_of)
        for kind, kind_of in _PROVIDERS.items()
        for origin in ("nppes", "plan-net", "nppes+plan-net")
    },
    **{
        f"{kind} tagged {tag}": (lambda t, k: lambda f: k(f) and t in f.tags)(tag, kind_of)
        for kind, kind_of in _PROVIDERS.items()
        for tag in _TAGS
    },
    "Practitioner by NPI": lambda f: _P(f) and _coded(f, "Practitioner.identifier.system", _NPI),
    "Practitioner by the directory's key": lambda f: (
        _P(f) and _coded(f, "Practitioner.identifier.system", _KEY_SYSTEM)
    ),
    "Practitioner with a gender": lambda f: _P(f) and _has(f, "Practitioner.gender"),
    "Practitioner with a licence": lambda f: (
        _P(f) and _has(f, "Practitioner.qualification.identifier")
    ),
    "Practitioner with a credential": lambda f: (
        _P(f) and _has(f, "Practitioner.qualification.code.text")
    ),
    "Practitioner with a prefix": lambda f: _P(f) and _has(f, "Practitioner.name.prefix"),
    "Practitioner with a suffix": lambda f: _P(f) and _has(f, "Practitioner.name.suffix"),
    "Practitioner with languages": lambda f: _P(f) and _has(f, "Practitioner.communication.coding"),
    "PractitionerRole in a network": lambda f: (
        _R(f) and _coded(f, "PractitionerRole.extension.url", NETWORK_EXTENSION)
    ),
    "PractitionerRole in no network": lambda f: (
        _R(f) and not _coded(f, "PractitionerRole.extension.url", NETWORK_EXTENSION)
    ),
    "PractitionerRole accepting new patients or not": lambda f: (
        _R(f) and _has(f, "PractitionerRole.extension.extension")
    ),
    "PractitionerRole without specialty": lambda f: (
        _R(f) and not _has(f, "PractitionerRole.specialty")
    ),
    "provider group by NPI": lambda f: (
        _provider_group(f) and _coded(f, "Organization.identifier.system", _NPI)
    ),
    "provider group by the directory's key": lambda f: (
        _provider_group(f) and _coded(f, "Organization.identifier.system", _KEY_SYSTEM)
    ),
    "provider group with an alias": lambda f: _provider_group(f) and _has(f, "Organization.alias"),
    "provider group with no address": lambda f: (
        _provider_group(f) and _has(f, "Organization.address.extension")
    ),
    "hospital": lambda f: _provider_group(f) and f.hospital,
    "payer": lambda f: (
        f.profile == "Organization" and _coded(f, "Organization.type.coding", "payer")
    ),
    "network": _of("Organization", "Network"),
    "OrganizationAffiliation with a specialty": lambda f: (
        _A(f) and _has(f, "OrganizationAffiliation.specialty")
    ),
    "OrganizationAffiliation without specialty": lambda f: (
        _A(f) and not _has(f, "OrganizationAffiliation.specialty")
    ),
    "Location from NPPES": lambda f: (
        _L(f) and f.origin != "plans" and not _has(f, "Location.hoursOfOperation")
    ),
    "Location from a payer, with hours": lambda f: _L(f) and _has(f, "Location.hoursOfOperation"),
    "Location accepting new patients or not": lambda f: _L(f) and _has(f, "Location.extension"),
    "Location of an organisation": lambda f: _L(f) and _has(f, "Location.managingOrganization"),
    "county": lambda f: _L(f) and _coded(f, "Location.physicalType.coding", "jdn"),
    "InsurancePlan by bid id": lambda f: _I(f) and _has(f, "InsurancePlan.identifier.system"),
    "InsurancePlan by the payer's id": lambda f: (
        _I(f) and not _has(f, "InsurancePlan.identifier.system")
    ),
    "Medicare Advantage InsurancePlan": lambda f: _I(f) and _has(f, "InsurancePlan.type.coding"),
    "InsurancePlan of no known type": lambda f: _I(f) and _has(f, "InsurancePlan.type.extension"),
    "InsurancePlan with a plan type": lambda f: _I(f) and _has(f, "InsurancePlan.plan"),
    "InsurancePlan with a coverage area": lambda f: _I(f) and _has(f, "InsurancePlan.coverageArea"),
    "InsurancePlan without coverage area": lambda f: (
        _I(f) and not _has(f, "InsurancePlan.coverageArea")
    ),
    "HealthcareService": _of("HealthcareService"),
    "Endpoint": _of("Endpoint"),
}
