"""Chained parameters whose target lives in another store than the resource searched, on a real
Elasticsearch: HealthcareServices and Endpoints (published by the payer, kept in the plans
index) found by what their provider organisation (served from the search index) holds, and by
their endpoints; and the bound on what a chain may resolve to. Expectations are read from the
Plan-Net export's files with plain JSON (or written here, for the export a test writes)."""

from __future__ import annotations

import gzip
import json
import re
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from indexer.load.run import LoadOptions, SourceFiles, load
from tests.conftest import ApiClient, Serve, settings_for
from tests.plan_net_rows import npi_of, resources
from tests.service.fhir import fhir_rows as F
from tests.service.fhir.conftest import PLAN_NET_NAME
from tests.source_rows import words as normalize

Json = dict[str, Any]
ORG_TYPES = "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/OrgTypeCS"
# Which element of each published type names its organisation.
ORGANIZATION_OF = {"Endpoint": "managingOrganization", "HealthcareService": "providedBy"}
PROVIDER_TYPES = ("prov", "fac", "prvgrp", "atyprv")


def _served_id(resource_id: str, directory: str = PLAN_NET_NAME) -> str:
    """The directory's id of a published resource: ``<directory>-<id>``, FHIR id characters."""
    return re.sub(r"[^A-Za-z0-9.-]+", "-", f"{directory}-{resource_id}").strip("-")[:64]


@cache
def _by_ref(kind: str) -> dict[str, Json]:
    """The export's resources of ``kind`` by reference (read once; never changed)."""
    return {f"{kind}/{r['id']}": r for r in resources(kind)}


def _published(kind: str) -> list[Json]:
    """What the directory keeps of ``kind``: every endpoint; the services each location of
    which is in the export."""
    if kind == "Endpoint":
        return list(resources(kind))
    locations = _by_ref("Location")
    return [
        s
        for s in resources(kind)
        if all(loc.get("reference") in locations for loc in s.get("location", []))
    ]


def _type(organization: Json) -> str | None:
    codes = [c["code"] for t in organization.get("type", []) for c in t.get("coding", [])]
    return codes[0] if codes else None


@cache
def _providers() -> tuple[frozenset[str], frozenset[str]]:
    """The export's organisations served as provider Organizations (from the search index), and
    those whose NPI other resources hold too (which one is served is not what these tests are
    about: what names them is left out). README "Kept as the payer published it": a provider
    organisation has an NPI or a name and a provider's type; a payer or a network is none."""
    organizations = _by_ref("Organization")
    candidates = {
        ref: npi_of(org)
        for ref, org in organizations.items()
        if _type(org) not in ("payer", "ntwk")
        and (npi_of(org) or (org.get("name") and _type(org) in PROVIDER_TYPES))
    }
    held = Counter(npi_of(p) for p in resources("Practitioner"))
    held.update(npi for npi in candidates.values() if npi)
    ambiguous = {ref for ref, npi in candidates.items() if npi and held[npi] > 1}
    return frozenset(set(candidates) - ambiguous), frozenset(ambiguous)


def _organization_ref(resource: Json, kind: str) -> str:
    return str(resource.get(ORGANIZATION_OF[kind], {}).get("reference", ""))


@cache
def _affiliations() -> dict[str, list[Json]]:
    """The export's affiliations by their participating organisation's reference."""
    found: dict[str, list[Json]] = {}
    for affiliation in resources("OrganizationAffiliation"):
        found.setdefault(affiliation["participatingOrganization"].get("reference"), []).append(
            affiliation
        )
    return found


def _sites(organization_ref: str) -> list[Json]:
    """The addresses of the sites a provider organisation's affiliations name (theirs and
    their services'): where it practises, what its ``address`` is."""
    services = _by_ref("HealthcareService")
    locations = _by_ref("Location")
    sites: list[str] = []
    for affiliation in _affiliations().get(organization_ref, []):
        sites += [loc["reference"] for loc in affiliation.get("location", [])]
        for named in affiliation.get("healthcareService", []):
            sites += [loc["reference"] for loc in services[named["reference"]].get("location", [])]
    return [locations[site]["address"] for site in sites]


def _address_terms(organization_ref: str) -> list[str]:
    """What ``address`` matches in a provider organisation: each part of its sites' addresses."""
    found: list[str] = []
    for address in _sites(organization_ref):
        postal = str(address.get("postalCode", "")).replace("-", "")
        parts = [*address.get("line", []), address.get("city"), address.get("state")]
        found += F.terms([p for p in (*parts, postal, postal[:5]) if p])
    return found


def _city(organizations: Iterable[str]) -> str:
    """The city most of these organisations practise in."""
    cities = Counter(
        normalize(city)
        for ref in organizations
        for city in {str(a.get("city", "")) for a in _sites(ref)}
        if city
    )
    return cities.most_common(1)[0][0]


def _expected(kind: str, holds: Iterable[str]) -> set[str]:
    """The served ids of the published ``kind`` whose organisation is one of ``holds``."""
    wanted = set(holds)
    return {_served_id(r["id"]) for r in _published(kind) if _organization_ref(r, kind) in wanted}


def _unclear(kind: str) -> set[str]:
    """The published ``kind`` naming an organisation whose NPI others hold too."""
    return _expected(kind, _providers()[1])


async def _found(api: ApiClient, kind: str, params: F.Pairs) -> set[str]:
    found = set(await F.found_ids(api, kind, params))
    return found - _unclear(kind)


@pytest.mark.parametrize("kind", ["Endpoint", "HealthcareService"])
async def test_found_by_their_organisations_address(api: ApiClient, kind: str) -> None:
    served = _providers()[0]
    named = {_organization_ref(r, kind) for r in _published(kind)} & served
    assert not {npi_of(_by_ref("Organization")[ref]) for ref in named} & set(F.row_by_npi()), (
        "an NPPES record would add its own address"
    )
    city = _city(named)
    for value in (city, city.upper()[:5]):
        expected = _expected(
            kind, [ref for ref in named if F.string_match(_address_terms(ref), value)]
        )
        assert len(expected) > 1, "the export has several organisations there"
        assert await _found(api, kind, [("organization.address", value)]) == expected, value
    nowhere = await F.found_ids(api, kind, [("organization.address", "nowhere-at-all")])
    assert nowhere == []


@pytest.mark.parametrize("kind", ["Endpoint", "HealthcareService"])
async def test_found_by_their_organisations_type(api: ApiClient, kind: str) -> None:
    """Every organisation the directory serves from its providers is a provider group."""
    expected = _expected(kind, _providers()[0])
    assert expected, "the export publishes these for provider organisations"
    for value in (f"{ORG_TYPES}|prvgrp", "prvgrp"):
        assert await _found(api, kind, [("organization.type", value)]) == expected, value
    # ``|code``: a code without a system, and OrgTypeCS has one.
    for value in (f"{ORG_TYPES}|payer", "payer", "|prvgrp", "http://example.org/other|prvgrp"):
        assert await F.found_ids(api, kind, [("organization.type", value)]) == [], value
    # With another chain on the same organisation: both hold.
    named = sorted({_organization_ref(r, kind) for r in _published(kind)} & _providers()[0])
    city = _city(named[:1])
    holding = [ref for ref in named if F.string_match(_address_terms(ref), city)]
    both = [("organization.type", "prvgrp"), ("organization.address", city)]
    assert await _found(api, kind, both) == _expected(kind, holding)


def _matching(word: str, modifier: str | None) -> list[str]:
    """The export's organisations whose name ``word`` matches (FHIR string search)."""
    return [
        ref
        for ref, org in _by_ref("Organization").items()
        if org.get("name") and F.string_match(F.terms([org["name"]]), word, modifier)
    ]


@pytest.mark.parametrize("kind", ["Endpoint", "HealthcareService"])
async def test_found_by_their_organisations_name(api: ApiClient, kind: str) -> None:
    """Values only served organisations' names match (an organisation the export names but
    the directory does not serve keeps its name in what names it, not this test's subject):
    a word inside names (``:contains``), the start of a name, a whole name (``:exact``)."""
    served = _providers()[0]
    named = sorted({_organization_ref(r, kind) for r in _published(kind)} & served)
    names = [normalize(_by_ref("Organization")[ref]["name"]) for ref in named]
    words = [w for name in names for w in name.split()[1:] if len(w) > 3]
    asked = [
        next((w, "contains") for w in words if len(_matching(w, "contains")) > 1),
        next((n[:5], None) for n in names if len(_matching(n[:5], None)) > 0),
        (names[0], "exact"),
    ]
    for value, modifier in asked:
        holding = _matching(value, modifier)
        assert set(holding) <= served, value
        expected = _expected(kind, holding)
        key = f"organization.name:{modifier}" if modifier else "organization.name"
        assert expected, key
        assert await _found(api, kind, [(key, value)]) == expected, key


@pytest.mark.parametrize("kind", ["Endpoint", "HealthcareService"])
async def test_found_by_their_organisations_parent(api: ApiClient, kind: str) -> None:
    """``organization.partof``: a provider organisation is served without a parent; the
    export's parents (a payer, a hospital) find nothing."""
    organizations = _by_ref("Organization")
    parents = {org["partOf"]["reference"] for org in organizations.values() if "partOf" in org}
    assert parents, "the export has organisations with a parent"
    for parent in sorted(parents):
        assert await F.found_ids(api, kind, [("organization.partof", parent)]) == []


async def test_a_chain_that_would_resolve_to_too_many_is_refused(
    api: ApiClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the bound on the organisations a chain resolves to (and on the published resources
    read to learn which they name), a clear OperationOutcome, never a truncated answer."""
    monkeypatch.setattr("service.fhir.sources.chains.MAX_CHAIN_TARGETS", 3)
    assert len(_published("Endpoint")) > 3
    served = _providers()[0]
    city = "providence"
    assert len([ref for ref in served if F.string_match(_address_terms(ref), city)]) > 3
    outcome = await F.fetch(api, "/fhir/Endpoint", [("organization.address", city)], status=400)
    assert outcome["resourceType"] == "OperationOutcome"
    issue = outcome["issue"][0]
    assert issue["severity"] == "error"
    assert "organization.address" in issue["diagnostics"]
    assert "more than 3" in issue["diagnostics"]
    # A chain narrow enough is answered still, from the organisations it matches.
    organizations = _by_ref("Organization")
    name = next(
        normalize(organizations[_organization_ref(e, "Endpoint")]["name"])
        for e in _published("Endpoint")
        if _organization_ref(e, "Endpoint") in served
    )
    expected = _expected("Endpoint", _matching(name, "exact"))
    assert expected
    found = await F.found_ids(api, "Endpoint", [("organization.name:exact", name)])
    assert set(found) == expected


# ---- a service naming its endpoint (the reference export has none managed by anyone) ----

ENDPOINT_DIRECTORY = "chains"
KEPT_NPIS = ("1230085657", "1230188327")


def _mentions(resource: Json, npi: str) -> bool:
    return f"-{npi}" in str(resource["id"])


def _write_export(directory: Path) -> dict[str, str]:
    """Two provider organisations of the reference export with their sites, endpoints and
    services; the first one's service names that organisation's endpoint. Returns NPI -> the
    service's id as the export writes it."""
    directory.mkdir()
    services: dict[str, str] = {}
    for kind in ("Organization", "Location", "Endpoint", "HealthcareService"):
        kept = []
        for resource in resources(kind):
            npi = next((n for n in KEPT_NPIS if _mentions(resource, n)), None)
            if npi is None:
                continue
            resource["resourceType"] = kind
            if kind == "HealthcareService":
                services[npi] = str(resource["id"])
                if npi == KEPT_NPIS[0]:
                    endpoint = f"Endpoint/plannet-organization-{npi}-direct"
                    resource["endpoint"] = [{"reference": endpoint}]
            kept.append(json.dumps(resource))
        assert len(kept) >= len(KEPT_NPIS), kind
        path = directory / f"chains_{kind}.ndjson.gz"
        path.write_bytes(gzip.compress(("\n".join(kept) + "\n").encode()))
    return services


@pytest.fixture(scope="module")
async def endpoint_export(
    es: AsyncElasticsearch, sample_sources: SourceFiles, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[IndexNames, dict[str, str]]]:
    names = IndexNames(f"test-chains-{uuid.uuid4().hex[:8]}")
    export = tmp_path_factory.mktemp("chains") / "export"
    services = _write_export(export)
    sources = SourceFiles(
        nppes=None,
        nucc=sample_sources.nucc,
        plan_net=export,
        plan_net_name=ENDPOINT_DIRECTORY,
    )
    try:
        report = await load(es, sources, LoadOptions(names=names))
        assert report.accounted
        yield names, services
    finally:
        await es.indices.delete(
            index=f"{names.prefix}-*", ignore_unavailable=True, allow_no_indices=True
        )


async def test_services_found_by_their_endpoints_organisation(
    serve: Serve, es_url: str, endpoint_export: tuple[IndexNames, dict[str, str]]
) -> None:
    names, services = endpoint_export
    api = await serve(settings_for(es_url, names))
    first, second = KEPT_NPIS
    expected = [_served_id(services[first], ENDPOINT_DIRECTORY)]
    service = await F.fetch(api, f"/fhir/HealthcareService/{expected[0]}")
    endpoint = _served_id(f"plannet-organization-{first}-direct", ENDPOINT_DIRECTORY)
    assert [e["reference"] for e in service["endpoint"]] == [f"Endpoint/{endpoint}"]
    for value in (f"Organization/{first}", first):
        found = await F.found_ids(api, "HealthcareService", [("endpoint.organization", value)])
        assert found == expected, value
    # The other organisation's service names no endpoint; its endpoint exists all the same.
    other = [("endpoint.organization", f"Organization/{second}")]
    assert await F.found_ids(api, "HealthcareService", other) == []
    assert await F.found_ids(api, "Endpoint", [("organization", second)])
