"""What a payer publishes with a wrong NPI is kept as published, on a real Elasticsearch: an
export with an NPI whose check digit is wrong, NPIs that are not 10 digits, and none at all,
loaded beside the NPPES sample and then updated, each resource followed to where it went:
served on /v2 and /fhir, flagged, counted as a warning, or rejected with its reason.
Expectations are written here by hand (the check digits, the documented id rule)."""

from __future__ import annotations

import csv
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames, version_started
from indexer.load.report import LoadReport
from indexer.load.run import LoadOptions, SourceFiles, load
from indexer.update.options import UpdateOptions
from indexer.update.plan_net import update_plan_net
from service.web.app import create_app
from service.web.auth import mint_token
from service.web.settings import ALL_SCOPES
from tests.conftest import SAMPLE_TODAY, ApiClient, ClientFactory, settings_for
from tests.service.fhir import fhir_rows as F
from tests.source_rows import active_rows

NAME = "acme"
SOURCE = f"plan-net:{NAME}"
NPI_SYSTEM = "http://hl7.org/fhir/sid/us-npi"
PLAN_NET = "http://hl7.org/fhir/us/davinci-pdex-plan-net/"
ORG_TYPES = PLAN_NET + "CodeSystem/OrgTypeCS"
NETWORK_REFERENCE = PLAN_NET + "StructureDefinition/network-reference"
# 1234567893 is the NPI with these nine digits (Luhn over 80840123456789 -> 3): 0 is wrong.
WRONG_CHECK_DIGIT = "1234567890"
NOT_HELD = "1234567891"  # wrong too, and nobody publishes it
MALFORMED = "12345-6789"
MALFORMED_ORG = "ABC"
UPDATED = "2025-06-01"
# The documented id of a provider without a 10-digit NPI: UUID v5 of the directory and the
# resource, in the directory's fixed namespace (README, "Kept as the payer published it").
NAMESPACE = uuid.UUID("6f1c1f0e-3a52-5b8e-9a34-4f1d2c8b7e10")


def _id_of(reference: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"provider:{SOURCE}:{reference}"))


def _wrong(npi: str) -> str:
    """``npi`` with another last digit: one check digit is right, so this one is wrong."""
    return npi[:9] + str((int(npi[9]) + 1) % 10)


@pytest.fixture(scope="module")
def nppes_individual(sample_sources: SourceFiles) -> dict[str, str]:
    assert sample_sources.nppes_file is not None
    return next(r for r in active_rows(sample_sources.nppes_file) if r["Entity Type Code"] == "1")


def _practitioner(ident: str, npi: str | None, family: str | None, given: str) -> Any:
    body: dict[str, Any] = {
        "resourceType": "Practitioner",
        "id": ident,
        "meta": {"lastUpdated": f"{UPDATED}T10:00:00Z"},
        "name": [{"family": family, "given": [given]}] if family else [],
        "qualification": [{"code": {"coding": [{"system": F.NUCC_SYSTEM, "code": "207RC0000X"}]}}],
    }
    if npi is not None:
        body["identifier"] = [{"system": NPI_SYSTEM, "value": npi}]
    return body


def _organization(ident: str, npi: str | None, name: str, kind: str) -> Any:
    body: dict[str, Any] = {
        "resourceType": "Organization",
        "id": ident,
        "meta": {"lastUpdated": f"{UPDATED}T10:00:00Z"},
        "name": name,
        "type": [{"coding": [{"system": ORG_TYPES, "code": kind}]}],
    }
    if npi is not None:
        body["identifier"] = [{"system": NPI_SYSTEM, "value": npi}]
    return body


def _role(ident: str, practitioner: str) -> Any:
    return {
        "resourceType": "PractitionerRole",
        "id": ident,
        "practitioner": {"reference": f"Practitioner/{practitioner}"},
        "location": [{"reference": "Location/hartford"}],
        "extension": [
            {"url": NETWORK_REFERENCE, "valueReference": {"reference": "Organization/net"}}
        ],
    }


def _affiliation(ident: str, organization: str) -> Any:
    return {
        "resourceType": "OrganizationAffiliation",
        "id": ident,
        "participatingOrganization": {"reference": f"Organization/{organization}"},
        "network": [{"reference": "Organization/net"}],
        "location": [{"reference": "Location/hartford"}],
    }


def _export(directory: Path, collider: str, family: str = "Pell", without: str = "") -> Path:
    """The export: one resource per case, every provider in the network at one Hartford site;
    ``without``: a practitioner left out, with its role."""
    resources = [
        _organization("net", None, "Acme Network", "ntwk"),
        _organization("pharmacy", None, "Quillfeather Pharmacy", "fac"),  # no NPI: a provider
        _organization("group", MALFORMED_ORG, "Wrenhaven Group", "prvgrp"),
        _organization("club", None, "Bowling Club", "bus"),  # no NPI, not a provider
        {
            "resourceType": "Location",
            "id": "hartford",
            "address": {
                "line": ["1 Elm St"],
                "city": "Hartford",
                "state": "CT",
                "postalCode": "06103",
            },
            "position": {"latitude": 41.7637, "longitude": -72.6851},
        },
        _practitioner("wrong", WRONG_CHECK_DIGIT, "Quistgaard", "Zelda"),
        _practitioner("collider", collider, "Ottoline", "Brunhild"),
        _practitioner("malformed", MALFORMED, family, "Yorick"),
        _practitioner("missing", None, "Vongsavath", "Xavia"),
        _practitioner("nameless", None, None, ""),  # neither NPI nor name: rejected
        {
            "resourceType": "InsurancePlan",
            "id": "plan",
            "identifier": [{"value": "ACME-GOLD"}],
            "name": "Acme Gold",
            "period": {"start": "2026-01-01"},
            "network": [{"reference": "Organization/net"}],
        },
        *(_role(f"role-{p}", p) for p in ("wrong", "collider", "malformed", "missing")),
        _role("role-nameless", "nameless"),  # points at a rejected practitioner: rejected
        _affiliation("aff-pharmacy", "pharmacy"),
        _affiliation("aff-group", "group"),
        _affiliation("aff-club", "club"),  # its participant is no provider: rejected
    ]
    gone = {f"Practitioner/{without}", f"PractitionerRole/role-{without}"}
    resources = [r for r in resources if f"{r['resourceType']}/{r['id']}" not in gone]
    directory.mkdir(parents=True, exist_ok=True)
    for kind in {r["resourceType"] for r in resources}:
        lines = [json.dumps(r) for r in resources if r["resourceType"] == kind]
        (directory / f"{kind}.ndjson").write_text("\n".join(lines) + "\n")
    return directory


@pytest.fixture(scope="module")
async def loaded(
    es: AsyncElasticsearch,
    sample_sources: SourceFiles,
    nppes_individual: dict[str, str],
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[IndexNames, LoadReport, Path]]:
    tmp = tmp_path_factory.mktemp("npis")
    export = _export(tmp / NAME, _wrong(nppes_individual["NPI"]))
    names = IndexNames(f"test-npis-{uuid.uuid4().hex[:8]}")
    sources = SourceFiles(**{**sample_sources.__dict__, "plan_net": export, "plan_net_name": NAME})
    report = await load(es, sources, LoadOptions(names=names, reject_file=tmp / "rejects.csv"))
    yield names, report, tmp / "rejects.csv"
    await es.indices.delete(index=f"{names.prefix}-*", ignore_unavailable=True)


@pytest.fixture
async def api(
    aiohttp_client: ClientFactory, es_url: str, loaded: tuple[IndexNames, LoadReport, Path]
) -> ApiClient:
    settings = settings_for(es_url, loaded[0]).model_copy(update={"rate_limit_per_s": 0})
    return await aiohttp_client(create_app(settings, today=lambda: SAMPLE_TODAY))


@pytest.fixture
def auth(es_url: str, loaded: tuple[IndexNames, LoadReport, Path]) -> dict[str, str]:
    settings = settings_for(es_url, loaded[0])
    return {"Authorization": f"Bearer {mint_token(settings, scopes=ALL_SCOPES)}"}


def _rejects(path: Path) -> dict[str, str]:
    """The export's lines in the reject file (the NPPES sample has its own)."""
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    return {
        f"{r['source']}:{r['row']}": r["reason"] for r in rows if r["source"].endswith(".ndjson")
    }


async def test_each_npi_is_counted_as_a_warning_and_only_the_unusable_are_rejected(
    loaded: tuple[IndexNames, LoadReport, Path],
) -> None:
    _, report, rejects = loaded
    assert report.accounted
    # wrong + collider; the group and the malformed practitioner; the pharmacy and "missing".
    assert report.plan_net_warnings == {
        "npi_check_digit_invalid": 2,
        "npi_malformed": 2,
        "npi_missing": 2,
    }
    assert report.plan_net["Practitioner"] == {"read": 5, "used": 4, "rejected": 1}
    assert report.plan_net["PractitionerRole"] == {"read": 5, "used": 4, "rejected": 1}
    assert report.plan_net["OrganizationAffiliation"] == {"read": 3, "used": 2, "rejected": 1}
    assert report.plan_net_joined == 0 and report.plan_net_only == 6
    assert _rejects(rejects) == {
        "Practitioner.ndjson:5": "missing_npi_and_name",
        "PractitionerRole.ndjson:5": "dangling_reference: Practitioner (missing_npi_and_name)",
        "OrganizationAffiliation.ndjson:3": "participant_without_npi",
    }


async def test_a_wrong_check_digit_is_served_by_its_npi_and_flagged(
    api: ApiClient, auth: dict[str, str]
) -> None:
    response = await api.get(f"/v2/providers/{WRONG_CHECK_DIGIT}", headers=auth)
    assert response.status == 200
    provider = await response.json()
    assert provider["npis"] == [WRONG_CHECK_DIGIT] and provider["lastName"] == "Quistgaard"
    assert provider["dataQuality"] == [
        {"code": "npi_check_digit_invalid", "source": SOURCE, "value": WRONG_CHECK_DIGIT}
    ]
    locations = await (
        await api.get(f"/v2/providers/{WRONG_CHECK_DIGIT}/locations", headers=auth)
    ).json()
    assert [loc["address"]["city"] for loc in locations] == ["Hartford"]
    # One nobody publishes is still nobody's, and says why.
    missing = await api.get(f"/v2/providers/{NOT_HELD}", headers=auth)
    assert missing.status == 404 and "check digit" in (await missing.json())["detail"]
    # In the payer's plan, as any NPI.
    body = {
        "contractYear": 2026,
        "payerPlanIds": ["ACME-GOLD"],
        "npis": [{"npi": WRONG_CHECK_DIGIT}],
    }
    [plan] = await (await api.post("/v2/providers/coverage", json=body, headers=auth)).json()
    assert plan["providers"][0]["networkStatus"] == "in_network"


async def test_a_wrong_npi_is_never_joined_to_the_nppes_provider_it_resembles(
    api: ApiClient, auth: dict[str, str], nppes_individual: dict[str, str]
) -> None:
    """Same nine first digits as an NPPES provider's NPI, another check digit: two providers."""
    npi = nppes_individual["NPI"]
    listed = await (await api.get(f"/v2/providers/{_wrong(npi)}", headers=auth)).json()
    assert listed["lastName"] == "Ottoline" and listed["sources"] == [SOURCE]
    assert listed["dataQuality"][0]["code"] == "npi_check_digit_invalid"
    nppes = await (await api.get(f"/v2/providers/{npi}", headers=auth)).json()
    assert nppes["sources"] == ["nppes"] and "dataQuality" not in nppes
    assert nppes["lastName"] == nppes_individual["Provider Last Name (Legal Name)"]


async def _searched(api: ApiClient, auth: dict[str, str], query: str) -> list[Any]:
    body = {"query": query, "location": "Hartford, CT", "radius": 5}
    response = await api.post("/v2/providers/search", json=body, headers=auth)
    assert response.status == 200, await response.text()
    return list((await response.json())["results"])


@pytest.mark.parametrize(
    ("query", "reference", "npis", "code", "value"),
    [
        ("Yorick Pell", "Practitioner/malformed", [MALFORMED], "npi_malformed", MALFORMED),
        ("Xavia Vongsavath", "Practitioner/missing", [], "npi_missing", None),
        ("Quillfeather Pharmacy", "Organization/pharmacy", [], "npi_missing", None),
        ("Wrenhaven Group", "Organization/group", [MALFORMED_ORG], "npi_malformed", MALFORMED_ORG),
    ],
)
async def test_without_a_ten_digit_npi_a_provider_is_found_by_search_under_its_own_id(
    api: ApiClient,
    auth: dict[str, str],
    query: str,
    reference: str,
    npis: list[str],
    code: str,
    value: str | None,
) -> None:
    [found] = [r for r in await _searched(api, auth, query) if r["id"] == _id_of(reference)]
    assert found["npis"] == npis and found["sources"] == [SOURCE]
    assert found["dataQuality"] == [{"code": code, "source": SOURCE, "value": value}]
    assert [loc["address"]["city"] for loc in found["locations"]] == ["Hartford"]
    # No 10-digit NPI, so no /v2/providers/{npi}: a path that is not 10 digits is a 400.
    if npis:
        response = await api.get(f"/v2/providers/{npis[0]}", headers=auth)
        assert response.status == 400


async def test_on_fhir_every_practitioner_is_found_by_each_parameter_and_tagged(
    api: ApiClient,
    nppes_individual: dict[str, str],
    loaded: tuple[IndexNames, LoadReport, Path],
) -> None:
    # _lastUpdated is the instant the directory last changed a resource: here the load's start.
    loaded_at = version_started(loaded[1].version).strftime("%Y-%m-%dT%H:%M:%SZ")
    cases = {
        WRONG_CHECK_DIGIT: ("Quistgaard", "Zelda", "npi_check_digit_invalid"),
        _wrong(nppes_individual["NPI"]): ("Ottoline", "Brunhild", "npi_check_digit_invalid"),
        _id_of("Practitioner/malformed"): ("Pell", "Yorick", "npi_malformed"),
        _id_of("Practitioner/missing"): ("Vongsavath", "Xavia", "npi_missing"),
    }
    for ident, (family, given, code) in cases.items():
        read = await F.fetch(api, f"/fhir/Practitioner/{ident}")  # checked against its profile
        assert F.tags(read) == {code}
        by_param: list[tuple[str, str]] = [
            ("_id", ident),
            ("family", family.lower()),
            ("given", given),
            ("name", f"{given} {family}"[:6]),
            ("_lastUpdated", f"eq{loaded_at}"),
            ("_text", f"{given} {family}"),
        ]
        for param, searched in by_param:
            assert ident in await F.found_ids(api, "Practitioner", [(param, searched)]), param
        [role] = await F.roles_of(api, ident)  # in one network
        assert F.tags(role) == {code}
        [network] = [
            e["valueReference"]["reference"]
            for e in role["extension"]
            if e["url"] == NETWORK_REFERENCE
        ]
        [location] = [loc["reference"] for loc in role["location"]]
        role_params: list[tuple[str, str]] = [
            ("practitioner", f"Practitioner/{ident}"),
            ("practitioner.name", family),
            ("location", location),
            ("location.address-city", "Hartford"),
            ("location.address-postalcode", "06103"),
            ("specialty", f"{F.NUCC_SYSTEM}|207RC0000X"),
            ("network", network),
            ("near", "41.7637|-72.6851|1|mi"),
            ("_text", f"{family} cardiology"),
        ]
        for param, searched in role_params:
            found = await F.found_ids(api, "PractitionerRole", [(param, searched)])
            assert role["id"] in found, param


async def test_on_fhir_an_organisation_without_a_ten_digit_npi_is_served_under_its_own_id(
    api: ApiClient,
) -> None:
    for reference, name, code in (
        ("Organization/pharmacy", "Quillfeather", "npi_missing"),
        ("Organization/group", "Wrenhaven", "npi_malformed"),
    ):
        ident = _id_of(reference)
        organization = await F.fetch(api, f"/fhir/Organization/{ident}")
        assert F.tags(organization) == {code}
        assert ident in await F.found_ids(api, "Organization", [("name", name)])
        assert ident in await F.found_ids(api, "Organization", [("_text", name)])
        assert ident in await F.found_ids(api, "Organization", [("address", "Hartford")])
        affiliated = [("participating-organization", f"Organization/{ident}")]
        assert await F.found_ids(api, "OrganizationAffiliation", affiliated) == [ident]
        at = await F.found_ids(api, "Location", [("organization", f"Organization/{ident}")])
        assert len(at) == 1
    assert not await F.found_ids(api, "Organization", [("name", "Bowling")])  # no provider


async def test_an_update_keeps_the_same_ids_and_accounts_alike(
    es: AsyncElasticsearch,
    aiohttp_client: ClientFactory,
    es_url: str,
    sample_sources: SourceFiles,
    nppes_individual: dict[str, str],
    tmp_path: Path,
) -> None:
    """A week later the malformed practitioner's name changed and the practitioner with the
    wrong check digit is gone: the update counts the same warnings, rewrites the first under
    the same id and removes the second (on a load of its own: it changes the data)."""
    collider = _wrong(nppes_individual["NPI"])
    names = IndexNames(f"test-npis-up-{uuid.uuid4().hex[:8]}")
    older = _export(tmp_path / "week1" / NAME, collider)
    sources = SourceFiles(**{**sample_sources.__dict__, "plan_net": older, "plan_net_name": NAME})
    try:
        loaded = await load(es, sources, LoadOptions(names=names, reject_file=tmp_path / "r.csv"))
        newer = _export(tmp_path / "week2" / NAME, collider, "Pellworth", without="wrong")
        options = UpdateOptions(names=names, reject_file=tmp_path / "rejects.csv")
        report = await update_plan_net(es, newer, options, NAME)
        assert report.accounted
        assert report.warnings == {**loaded.plan_net_warnings, "npi_check_digit_invalid": 1}
        assert report.outcomes == {"changed": 1, "removed": 1, "unchanged": 4}
        settings = settings_for(es_url, names)
        api = await aiohttp_client(create_app(settings, today=lambda: SAMPLE_TODAY))
        auth = {"Authorization": f"Bearer {mint_token(settings, scopes=ALL_SCOPES)}"}
        [renamed] = [
            r
            for r in await _searched(api, auth, "Yorick Pellworth")
            if r["id"] == _id_of("Practitioner/malformed")
        ]
        assert renamed["lastName"] == "Pellworth" and renamed["npis"] == [MALFORMED]
        gone = await api.get(f"/v2/providers/{WRONG_CHECK_DIGIT}", headers=auth)
        assert gone.status == 404 and "check digit" in (await gone.json())["detail"]
        kept = await api.get(f"/v2/providers/{collider}", headers=auth)
        assert kept.status == 200
        again = await update_plan_net(es, newer, options, NAME)
        assert set(again.outcomes) == {"unchanged"} and again.warnings == report.warnings
    finally:
        await es.indices.delete(index=f"{names.prefix}-*", ignore_unavailable=True)
