"""What /fhir serves validates against its declared Plan-Net profile (HAPI validator, Plan-Net
1.1.0 and US Core 3.1.1; tests/fhir_validator.py), each shape once, in ONE JVM run inside this
module, with known-bad canaries in the same run to show the validator and its reading can fail.

Fed to the validator (picked from a ``$export`` of the sample with its Plan-Net reference
export, tests/service/fhir/validation_strata.py, then fetched again by ``_id`` through the
searches: a resource searched exactly as exported is validated once):

- the CapabilityStatement (``/fhir/metadata``), against base R4 (it declares no profile); that it
  declares every SHALL of the Plan-Net CapabilityStatement it claims is checked here in Python;
- the reference export (data/sample/plannet) as served: for each of its resources what /fhir
  serves for it: the Practitioner, Organization and OrganizationAffiliation of each provider,
  each HealthcareService and Endpoint, each InsurancePlan with its network and payer; of the
  PractitionerRoles (one per practitioner and network) one per practitioner, its others being
  the same but for the id and network (checked for every role served), and of the Locations
  (one per provider and site) one per site of the export;
- the strata: one resource per (type, profile, origin, data-quality tags, element paths,
  hospital), that is per builder branch of service/fhir/resources.py, elements.py, plans.py and
  the published resources: origin NPPES, the reference export, or both (the export's overlay on
  an NPPES provider), plans, published; each tag (npi_check_digit_invalid, npi_malformed,
  npi_missing); gender or none, licences, credentials, prefix, suffix, languages; a role per
  network or none, accepting new patients, a specialty or none; provider groups with an NPI,
  with the directory's key, an alias, no address, hospitals; payers, networks; Locations from
  NPPES and from payers (hours, new patients, managing organisation), counties; InsurancePlans
  by bid id or payer's id, Medicare Advantage or not, with or without plan type and coverage
  area; HealthcareServices and Endpoints; then one more resource for each code (path, system,
  code) none of the picked has, so every code served is shown once. ``REQUIRED`` lists the
  branches that must each be met, so a stratum that disappears fails the test;
- every resource of a payer's export made here from the reference export with the cases the
  sample lacks (validation_data.data_quality_export): a practitioner without an NPI, one whose
  NPI is not ten digits, a provider group with a malformed NPI, and the overlay on an NPPES
  individual and organisation;
- the canaries (validation_data.canaries), each with its expected errors by path and message.

The exhaustive sweep of everything served is ``make fhir-validate`` (test_fhir_sweep.py)."""

from __future__ import annotations

import asyncio
import io
import json
import re
import tarfile
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from indexer.load.run import LoadOptions, SourceFiles, load
from tests import fhir_validator
from tests.conftest import ApiClient, needs
from tests.plan_net_rows import npi_of, resources, usable_practitioners
from tests.service.fhir.validation_data import (
    DATA_QUALITY_NAME,
    DataQualityExport,
    data_quality_export,
    reference_providers,
)
from tests.service.fhir.validation_run import (
    Fed,
    Served,
    Validated,
    client,
    gather,
    json_of,
    matched,
)
from tests.service.fhir.validation_strata import (
    REQUIRED,
    network_ids_well_formed,
    without_network,
)

Json = dict[str, Any]
PROVIDER_KEY_SYSTEM = "urn:provider-directory:provider-key"  # README, "FHIR Plan-Net API"
PLAN_NET_PACKAGE = fhir_validator.VALIDATOR / "src/main/resources/packages/plannet.tgz"
PLAN_NET = "http://hl7.org/fhir/us/davinci-pdex-plan-net"
PLAN_NET_GUIDE = f"{PLAN_NET}/ImplementationGuide/hl7.fhir.us.davinci-pdex-plan-net"


@pytest.fixture(scope="module")
async def data_quality(
    es: AsyncElasticsearch,
    sample_sources: SourceFiles,
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[IndexNames, DataQualityExport]]:
    """The data-quality export loaded with the NPPES rows it adds to, under a prefix of its own."""
    tmp = tmp_path_factory.mktemp("data-quality")
    export = data_quality_export(tmp / DATA_QUALITY_NAME, tmp / "npidata_pfile_dq.csv")
    names = IndexNames(f"test-dq-{uuid.uuid4().hex[:8]}")
    sources = SourceFiles(
        nppes=export.nppes,
        nucc=sample_sources.nucc,
        plan_net=export.directory,
        plan_net_name=DATA_QUALITY_NAME,
    )
    try:
        report = await load(es, sources, LoadOptions(names=names))
        assert report.accounted and report.plan_net_joined == 2
        yield names, export
    finally:
        await es.indices.delete(
            index=f"{names.prefix}-*", ignore_unavailable=True, allow_no_indices=True
        )


@pytest.fixture(scope="module")
async def served(
    es_url: str,
    fhir_loaded: IndexNames,
    data_quality: tuple[IndexNames, DataQualityExport],
) -> AsyncIterator[Served]:
    found = await gather(es_url, fhir_loaded, data_quality)
    try:
        yield found
    finally:
        if found.run is not None:
            found.run.close()


@pytest.fixture(scope="module")
async def validated(served: Served) -> Validated:
    needs(fhir_validator.available())
    assert served.run is not None
    verdicts = await asyncio.to_thread(served.run.verdicts)
    assert [v.resource for v in verdicts] == [
        f"{f.resource['resourceType']}/{f.resource.get('id', '')}" for f in served.fed
    ]
    return Validated(served, list(zip(served.fed, verdicts, strict=True)))


def _failing(results: list[tuple[Fed, fhir_validator.Verdict]]) -> dict[str, list[str]]:
    return {
        f"{fed.where} {verdict.resource}": [str(e) for e in verdict.errors]
        for fed, verdict in results
        if verdict.errors or verdict.profile is None
    }


# ---- the validator can fail, and what it excuses it excuses only where it is no error ----


async def test_each_canary_fails_with_exactly_its_expected_errors(validated: Validated) -> None:
    results = validated.of("canary")
    assert [fed.resource["id"] for fed, _ in results] == [
        c.resource["id"] for c in validated.served.canaries
    ]
    wrong: dict[str, object] = {}
    for canary, (_, verdict) in zip(validated.served.canaries, results, strict=True):
        errors = [(e.location, e.message) for e in verdict.errors]
        expected = [(re.compile(p), re.compile(m)) for p, m in canary.expected]
        unexpected = [
            e
            for e in errors
            if not any(p.fullmatch(e[0]) and m.fullmatch(e[1]) for p, m in expected)
        ]
        missing = [
            (p.pattern, m.pattern)
            for p, m in expected
            if not any(p.fullmatch(e[0]) and m.fullmatch(e[1]) for e in errors)
        ]
        if unexpected or missing:
            wrong[canary.name] = {"unexpected": unexpected, "missing": missing}
    assert wrong == {}


def _message(location: str, text: str, severity: str = "error") -> fhir_validator.Message:
    return fhir_validator.Message(severity, location, text, None)


NUCC_UNKNOWN = (
    "CodeSystem is unknown and can't be validated: http://nucc.org/provider-taxonomy for "
    "'http://nucc.org/provider-taxonomy#207RC0000X'"
)
NOT_A_LANGUAGE_LISTED = 'Code "vi" is not in valueset: http://hl7.org/fhir/ValueSet/languages'
UNKNOWN_LANGUAGE = (
    "CodeSystem is unknown and can't be validated: urn:ietf:bcp:47 for 'urn:ietf:bcp:47#vi'"
)


@pytest.mark.parametrize(
    ("location", "text", "beside", "excused"),
    [
        ("PractitionerRole.specialty[2]", NUCC_UNKNOWN, None, True),
        ("HealthcareService.specialty[0]", NUCC_UNKNOWN, None, True),
        ("PractitionerRole.code[0]", NUCC_UNKNOWN, None, False),  # no NUCC value set there
        ("PractitionerRole.specialty[2].coding[0]", NUCC_UNKNOWN, None, False),
        ("PractitionerRole.specialty[0]", NUCC_UNKNOWN.replace("207RC0000X", "x"), None, False),
        ("Practitioner.communication[1]", NOT_A_LANGUAGE_LISTED, None, True),
        ("Practitioner.communication[1]", NOT_A_LANGUAGE_LISTED, UNKNOWN_LANGUAGE, False),
        ("Practitioner.language", NOT_A_LANGUAGE_LISTED, None, False),
        ("Practitioner.communication[1]", NOT_A_LANGUAGE_LISTED + " (and more)", None, False),
    ],
)
def test_an_error_is_excused_only_at_its_path_with_its_message(
    location: str, text: str, beside: str | None, excused: bool
) -> None:
    messages = [_message(location, text)]
    if beside is not None:
        messages.append(_message(location, beside, "warning"))
    verdict = fhir_validator.Verdict("Practitioner/x", "profile", tuple(messages))
    assert (verdict.errors == ()) == excused


# ---- what /fhir serves validates ----


async def test_the_capability_statement_is_valid_r4(validated: Validated) -> None:
    [(fed, verdict)] = validated.of("capability")
    assert fed.resource["resourceType"] == "CapabilityStatement" and verdict.profile is None
    assert verdict.errors == ()


async def test_the_reference_export_as_served_validates(validated: Validated) -> None:
    results = validated.of("reference")
    assert _failing(results) == {}
    fed = {f"{f.resource['resourceType']}/{f.resource['id']}" for f, _ in results}
    practitioners = {npi_of(r) for r in usable_practitioners().values()}
    assert {f"Practitioner/{npi}" for npi in practitioners} <= fed
    counted = Counter(f.resource["resourceType"] for f, _ in results if f.where == "export")
    for kind in ("HealthcareService", "Endpoint"):
        assert counted[kind] == len(list(resources(kind))), kind
    assert (
        counted["PractitionerRole"] == len(validated.served.reference.roles) >= len(practitioners)
    )


async def test_each_stratum_validates(validated: Validated) -> None:
    assert _failing(validated.of("stratum")) == {}


async def test_the_data_quality_cases_validate(
    validated: Validated, data_quality: tuple[IndexNames, DataQualityExport]
) -> None:
    results = validated.of("data-quality")
    assert _failing(results) == {}
    fed = {f.resource["id"] for f, _ in results}
    assert set(data_quality[1].keys()) <= fed


async def test_every_builder_branch_is_validated(served: Served) -> None:
    facts = [
        served.origins.facts(f.resource) for f in served.fed if f.why in ("reference", "stratum")
    ]
    facts += [served.data_quality_origins.facts(r) for r in served.data_quality]
    missing = [name for name, met in REQUIRED.items() if not any(met(f) for f in facts)]
    assert not missing, missing


async def test_every_provider_served_comes_from_a_source_file(served: Served) -> None:
    """The origins the strata are read by cover the pool: no provider of unknown origin."""
    assert {served.origins.origin(r) for r in served.pool} <= {
        "nppes",
        "plan-net",
        "nppes+plan-net",
        "plans",
        "published",
    }


async def test_a_practitioners_roles_differ_only_in_their_id_and_network(served: Served) -> None:
    """Why one role per practitioner is enough: the others are the same but for the id and the
    network reference, both well-formed ids (for every role served)."""
    roles: dict[str, list[Json]] = {}
    for resource in served.pool:
        if resource["resourceType"] == "PractitionerRole":
            roles.setdefault(resource["practitioner"]["reference"], []).append(resource)
    assert sum(len(found) > 1 for found in roles.values()) > 100  # practitioners in networks
    for practitioner, found in roles.items():
        assert len({without_network(r) for r in found}) == 1, practitioner
        assert all(network_ids_well_formed(r) for r in found), practitioner


async def test_search_serves_what_export_serves(served: Served) -> None:
    """Each picked resource a search lists (all but the counties, fetched as includes) is
    searched by ``_id`` exactly as it was exported: validating one validates both."""
    picked = [f for f in served.fed if f.why in ("reference", "stratum")]
    exported = [f for f in picked if f.where == "export"]
    assert served.searched_as_exported == len(exported) > 5000
    assert [f for f in picked if f.where == "search"] == []


# ---- the CapabilityStatement declares what the Plan-Net one requires ----


def _plan_net_capability() -> Json:
    with tarfile.open(PLAN_NET_PACKAGE) as package:
        member = package.extractfile("package/CapabilityStatement-plan-net.json")
        assert member is not None
        found: Json = json.load(io.TextIOWrapper(member, encoding="utf-8"))
    return found


def _shall(element: Json) -> bool:
    return any(
        e["url"].endswith("capabilitystatement-expectation") and e["valueCode"] == "SHALL"
        for e in element.get("extension", [])
    )


async def test_the_capability_statement_declares_every_plan_net_shall(api: ApiClient) -> None:
    ours = {r["type"]: r for r in (await json_of(api, "/fhir/metadata"))["rest"][0]["resource"]}
    required = _plan_net_capability()
    lacking: dict[str, list[str]] = {}
    for resource in required["rest"][0]["resource"]:
        if not _shall(resource):
            continue
        kind = resource["type"]
        mine = ours.get(kind, {})
        wanted = [f"profile {p}" for p in resource.get("supportedProfile", [])]
        wanted += [f"interaction {i['code']}" for i in resource["interaction"] if _shall(i)]
        wanted += [f"searchParam {p['name']}" for p in resource["searchParam"] if _shall(p)]
        wanted += [f"searchInclude {i}" for i in resource.get("searchInclude", [])]
        wanted += [f"searchRevInclude {i}" for i in resource.get("searchRevInclude", [])]
        held = {f"profile {p}" for p in mine.get("supportedProfile", [])}
        held |= {f"interaction {i['code']}" for i in mine.get("interaction", [])}
        held |= {f"searchParam {p['name']}" for p in mine.get("searchParam", [])}
        held |= {f"searchInclude {i}" for i in mine.get("searchInclude", [])}
        held |= {f"searchRevInclude {i}" for i in mine.get("searchRevInclude", [])}
        if missing := [w for w in wanted if w not in held]:
            lacking[kind] = missing
    assert lacking == {}


# ---- a provider published without an NPI is identified all the same ----


async def test_a_practitioner_published_without_an_npi_is_identified_by_its_key(
    es_url: str, data_quality: tuple[IndexNames, DataQualityExport]
) -> None:
    names, export = data_quality
    async with client(es_url, names) as api:
        read = await json_of(api, f"/fhir/Practitioner/{export.without_npi}")
        assert [t["code"] for t in read["meta"]["tag"]] == ["npi_missing"]
        assert read["identifier"] == [
            {"use": "secondary", "system": PROVIDER_KEY_SYSTEM, "value": export.without_npi}
        ]
        for asked in (export.without_npi, f"{PROVIDER_KEY_SYSTEM}|{export.without_npi}"):
            found = await matched(api, "Practitioner", {"identifier": asked}, "match")
            assert [r["id"] for r in found] == [export.without_npi], asked
        for elsewhere in (f"|{export.without_npi}", f"urn:other|{export.without_npi}"):
            assert await matched(api, "Practitioner", {"identifier": elsewhere}, "match") == []
        malformed = await json_of(api, f"/fhir/Practitioner/{export.malformed}")
        assert [i["value"] for i in malformed["identifier"]] == ["12345-6789"]  # as published


async def test_an_organisation_published_without_an_npi_is_identified_by_its_key(
    api: ApiClient,
) -> None:
    """The reference export's pharmacies have no NPI (an identifier of the payer's own only,
    which the directory does not keep): each is served under the directory's key."""
    keys = sorted(
        key
        for key, resource in reference_providers().items()
        if npi_of(resource) is None and "fac" in _kinds(resource)
    )
    assert len(keys) > 100
    for key in keys[:3]:
        read = await json_of(api, f"/fhir/Organization/{key}")
        assert [t["code"] for t in read["meta"]["tag"]] == ["npi_missing"]
        assert read["identifier"] == [
            {"use": "secondary", "system": PROVIDER_KEY_SYSTEM, "value": key}
        ]


def _kinds(organization: Json) -> set[str]:
    return {c["code"] for t in organization.get("type", []) for c in t.get("coding", [])}
