"""Reads and searches of the FHIR Plan-Net API on the NPPES sample loaded with the Plan-Net
export: every expected set is read from the source files (tests.service.fhir.fhir_rows), and
every search is walked to its last page."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_scan
from fhir.resources.R4B.capabilitystatement import CapabilityStatement
from fhir.resources.R4B.searchparameter import SearchParameter

from core.index_contract import IndexNames, version_started
from core.plan_net_codes import PROVIDER_ROLES
from service.fhir.search.include_table import INCLUDES, REVINCLUDES
from service.fhir.search.parameters import PARAMETERS
from tests.conftest import ApiClient
from tests.plan_net_value_sets import role_specialties
from tests.service.fhir import fhir_rows as F
from tests.service.fhir.fhir_rows import Pairs, Row
from tests.source_rows import nppes_rows

Case = tuple[Pairs, set[str]]
LAST = "Provider Last Name (Legal Name)"
FIRST = "Provider First Name"
ORG = "Provider Organization Name (Legal Business Name)"


def _people(match: Callable[[Row], bool], listed: Callable[[F.Listed], bool]) -> set[str]:
    """NPIs of the sample's individuals and of the Plan-Net-only practitioners that match."""
    return {r["NPI"] for r in F.individuals() if match(r)} | {
        p.npi for p in F.plan_net_people() if listed(p)
    }


def _unambiguous(candidates: list[str], modifier: str | None = None) -> str:
    """The first value no NPPES "Other" name matches (the API may match those or not)."""
    return next(
        v
        for v in candidates
        if not any(F.string_match(F.other_person_names(r), v, modifier) for r in F.rows())
    )


def _family() -> str:
    return _unambiguous(F.most_common(r[LAST] for r in F.individuals()))


def _name_case(value: str, modifier: str | None = None) -> Case:
    key = f"name:{modifier}" if modifier else "name"
    expected = _people(
        lambda r: F.string_match(F.name_terms(r), value, modifier),
        lambda p: F.string_match(p.name_terms(), value, modifier),
    )
    return [(key, value)], expected


def _accented(text: str) -> str:
    """``GARCIA`` -> ``garcía``: the last vowel accented, lower case."""
    lower = text.lower()
    at = max(lower.rfind(v) for v in "aeiou")
    return (
        lower[:at] + {"a": "á", "e": "é", "i": "í", "o": "ó", "u": "ú"}[lower[at]] + lower[at + 1 :]
    )


def case_family() -> Case:
    value = _family().lower()
    return [("family", value)], _people(
        lambda r: F.string_match(F.family_terms(r), value),
        lambda p: F.string_match(F.terms([p.family]), value),
    )


def case_family_prefix() -> Case:
    value = _family()[:3]
    return [("family", value)], _people(
        lambda r: F.string_match(F.family_terms(r), value),
        lambda p: F.string_match(F.terms([p.family]), value),
    )


def case_given() -> Case:
    value = F.most_common(r[FIRST] for r in F.individuals())[0].title()
    return [("given", value)], _people(
        lambda r: F.string_match(F.given_terms(r), value),
        lambda p: F.string_match(p.given_terms(), value),
    )


def case_name_prefix() -> Case:
    return _name_case(
        _unambiguous([n[:4] for n in F.most_common(r[LAST] for r in F.individuals())])
    )


def case_name_exact() -> Case:
    return _name_case(
        _unambiguous(F.most_common(r[LAST] for r in F.individuals())[1:], "exact"), "exact"
    )


def case_name_contains() -> Case:
    names = F.most_common(r[LAST] for r in F.individuals() if len(r[LAST]) > 6)
    return _name_case(_unambiguous([n[2:6] for n in names], "contains"), "contains")


def case_name_accented() -> Case:
    value = _accented(_family())
    assert value != _family().lower()
    return _name_case(value)


def _with_middle_name() -> Row:
    return next(r for r in F.individuals() if r["Provider Middle Name"] and r[FIRST])


def case_name_whole() -> Case:
    """A person's whole name, as written and as people type it without the middle name."""
    row = _with_middle_name()
    whole = " ".join((row[FIRST], row["Provider Middle Name"], row[LAST]))
    return _name_case(_unambiguous([whole], "exact"), "exact")


def case_name_first_last() -> Case:
    row = _with_middle_name()
    return _name_case(_unambiguous([f"{row[FIRST]} {row[LAST]}"], "exact"), "exact")


def case_two_ids() -> Case:
    npis = {F.individuals()[0]["NPI"], F.plan_net_people()[0].npi}
    return [("_id", ",".join(sorted(npis)))], npis


PRACTITIONER_CASES = [
    case_family,
    case_family_prefix,
    case_given,
    case_name_prefix,
    case_name_exact,
    case_name_contains,
    case_name_accented,
    case_name_whole,
    case_name_first_last,
    case_two_ids,
]


@pytest.mark.parametrize("case", PRACTITIONER_CASES, ids=lambda c: c.__name__[5:])
async def test_practitioner_search(api: ApiClient, case: Callable[[], Case]) -> None:
    params, expected = case()
    pages = await F.walk(api, "Practitioner", params)
    found = [r["id"] for r in F.entries(pages)]
    assert expected and sorted(found) == sorted(expected)
    assert pages[0]["total"] == len(expected)


async def test_last_updated_is_the_instant_of_the_load(
    api: ApiClient, es: AsyncElasticsearch, served_names: IndexNames
) -> None:
    """Every resource of a fresh load last changed at the load's start (its version's name),
    to the second, and ``_lastUpdated`` compares that instant exactly."""
    [index] = await es.indices.get_alias(name=served_names.alias("search"))
    loaded = version_started(index.rsplit("-", 1)[-1]).replace(microsecond=0)
    at = loaded.strftime("%Y-%m-%dT%H:%M:%SZ")
    second = timedelta(seconds=1)
    everybody = _people(lambda r: True, lambda p: True)
    pages = await F.walk(api, "Practitioner", [("_lastUpdated", f"ge{at}")])
    assert sorted(r["id"] for r in F.entries(pages)) == sorted(everybody)
    assert {r["meta"]["lastUpdated"] for r in F.entries(pages)} == {at}
    for value, expected in (
        (f"gt{at}", set()),
        (f"lt{at}", set()),
        (f"gt{(loaded - second).strftime('%Y-%m-%dT%H:%M:%SZ')}", everybody),
        (f"le{at}", everybody),
        (f"ne{at}", set()),
        (loaded.date().isoformat(), everybody),
        (f"eb{loaded.date() + timedelta(days=1)}", everybody),
    ):
        found = await F.found_ids(api, "Practitioner", [("_lastUpdated", value)])
        assert set(found) == expected, value


async def test_practitioner_role_finds_the_same_practitioners(api: ApiClient) -> None:
    params, expected = case_name_prefix()
    found = await F.found_ids(api, "PractitionerRole", [("practitioner.name", params[0][1])])
    assert sorted(found) == sorted(expected)


def _role_of(code: str) -> str:
    """The ProviderRoleCS code of a taxonomy: its longest prefix in the Plan-Net table."""
    prefixes = [p for p in PROVIDER_ROLES if code.startswith(p)]
    return PROVIDER_ROLES[max(prefixes, key=len)][0] if prefixes else "os"


def _city_case(param: str, candidates: list[str]) -> Case:
    value = next(v for v in candidates if not F.elsewhere(param, v))
    expected = {
        r["NPI"] for r in F.individuals() if F.string_match(F.place_terms(param, F.place(r)), value)
    }
    return [(f"location.{param}", value)], expected


def role_specialty() -> Case:
    code = F.most_common(c for r in F.individuals() for c in F.codes(r))[0]
    return [("specialty", code)], _people(lambda r: code in F.codes(r), lambda p: code in p.codes)


def role_specialty_system() -> Case:
    code = "207RC0000X"
    expected = _people(lambda r: code in F.codes(r), lambda p: code in p.codes)
    return [("specialty", f"{F.NUCC_SYSTEM}|{code}")], expected


def role_role() -> Case:
    counts = F.most_common(_role_of(c) for r in F.individuals() for c in F.codes(r))
    role = next(r for r in counts if r != "os")
    return [("role", role)], _people(
        lambda r: any(_role_of(c) == role for c in F.codes(r)),
        lambda p: any(_role_of(c) == role for c in p.codes),
    )


def role_practitioner() -> Case:
    npis = [F.individuals()[5]["NPI"], F.plan_net_people()[3].npi]
    return [("practitioner", f"Practitioner/{npis[0]},{npis[1]}")], set(npis)


def role_city() -> Case:
    return _city_case("address-city", F.most_common(F.place(r).city for r in F.individuals()))


def role_state() -> Case:
    return _city_case("address-state", F.most_common(F.place(r).state for r in F.individuals()))


def role_postal_code() -> Case:
    return _city_case(
        "address-postalcode", F.most_common(F.place(r).zip[:5] for r in F.individuals())
    )


def role_address() -> Case:
    lines = F.most_common(F.place(r).line1 for r in F.individuals())
    return _city_case("address", lines)


ROLE_CASES = [
    role_specialty,
    role_specialty_system,
    role_role,
    role_practitioner,
    role_city,
    role_state,
    role_postal_code,
    role_address,
]


@pytest.mark.parametrize("case", ROLE_CASES, ids=lambda c: c.__name__[5:])
async def test_practitioner_role_search(api: ApiClient, case: Callable[[], Case]) -> None:
    params, expected = case()
    pages = await F.walk(api, "PractitionerRole", params)
    roles = F.entries(pages)
    assert expected and sorted({F.practitioner_of(r) for r in roles}) == sorted(expected)
    assert len({r["id"] for r in roles}) == len(roles)  # a role per network, each once
    for role in roles:
        npi = F.practitioner_of(role)
        listed = next((p for p in F.plan_net_people() if p.npi == npi), None)
        sources = listed.codes if listed else F.codes(F.row_of(npi))
        served = {c["code"] for s in role.get("specialty", []) for c in s["coding"]}
        assert served == role_specialties(sources)


async def test_a_specialty_of_another_system_matches_nothing(api: ApiClient) -> None:
    pages = await F.walk(
        api, "PractitionerRole", [("specialty", "http://example.org/x|207RC0000X")]
    )
    assert "entry" not in pages[0]


async def test_practitioner_role_by_location(api: ApiClient) -> None:
    listed_elsewhere = {npi for npi, _ in F.dac_places()}  # those may have more places
    row = next(r for r in F.individuals()[7:] if r["NPI"] not in listed_elsewhere)
    role = await F.fetch(api, f"/fhir/PractitionerRole/{row['NPI']}")
    [ref] = [loc["reference"] for loc in role["location"]]
    found = await F.found_ids(api, "PractitionerRole", [("location", ref)])
    assert found == [row["NPI"]]
    location = await F.fetch(api, f"/fhir/{ref}")
    assert F.location_key(location) == F.place(row).key


async def test_metadata_declares_the_parameter_table(api: ApiClient) -> None:
    statement = await F.fetch(api, "/fhir/metadata")
    CapabilityStatement.model_validate(statement)
    assert statement["fhirVersion"] == "4.0.1"
    [rest] = statement["rest"]
    declared = {r["type"]: r for r in rest["resource"]}
    assert set(declared) == set(PARAMETERS)
    for kind, resource in declared.items():
        names = [p["name"] for p in resource["searchParam"]]
        assert sorted(names) == sorted(n for n in PARAMETERS[kind] if "." not in n)
        assert resource.get("searchInclude", []) == list(INCLUDES[kind])
        assert resource.get("searchRevInclude", []) == list(REVINCLUDES[kind])
        assert f"{F.PLAN_NET_PROFILE}{kind}" in resource["supportedProfile"]
    text = await F.fetch(api, "/fhir/SearchParameter/provider-directory-text")
    SearchParameter.model_validate(text)
    assert text["code"] == "_text"
    assert sorted(text["base"]) == sorted(k for k, p in PARAMETERS.items() if "_text" in p)
    await F.fetch(api, "/fhir/SearchParameter/nothing-here", status=404)


async def test_read_each_kind_of_provider(api: ApiClient) -> None:
    person, org = F.individuals()[11], F.organizations()[11]
    practitioner = await F.fetch(api, f"/fhir/Practitioner/{person['NPI']}")
    assert practitioner["name"][0]["family"] == person[LAST]
    assert practitioner["name"][0]["given"][0] == person[FIRST]
    role = await F.fetch(api, f"/fhir/PractitionerRole/{person['NPI']}")
    served = {c["code"] for s in role.get("specialty", []) for c in s["coding"]}
    assert served == role_specialties(F.codes(person))
    organization = await F.fetch(api, f"/fhir/Organization/{org['NPI']}")
    assert organization["name"] == org[ORG]
    assert [a["line"][0] for a in organization["address"]] == [F.place(org).line1]
    # An NPI is one kind of resource only.
    await F.fetch(api, f"/fhir/Practitioner/{org['NPI']}", status=404)
    await F.fetch(api, f"/fhir/PractitionerRole/{org['NPI']}", status=404)
    await F.fetch(api, f"/fhir/Organization/{person['NPI']}", status=404)


async def test_read_a_location_found_by_its_zip(api: ApiClient) -> None:
    row = F.organizations()[3]
    at = F.place(row)
    pages = await F.walk(api, "Location", [("address-postalcode", at.zip[:5])])
    [found] = [
        r
        for r in F.entries(pages)
        if F.location_key(r) == at.key
        and r.get("managingOrganization", {}).get("reference") == f"Organization/{row['NPI']}"
    ]
    assert await F.fetch(api, f"/fhir/Location/{found['id']}") == found
    await F.fetch(api, "/fhir/Location/no-such-location", status=404)


async def test_every_provider_is_found_by_its_search_documents_id(
    api: ApiClient, es: AsyncElasticsearch, served_names: IndexNames
) -> None:
    """FHIR asks for a provider by its search document's id (``npi`` is kept for sorting only):
    every document's id is its key, a payer's provider without a usable NPI's too."""
    keys: dict[str, str] = {}
    async for hit in async_scan(
        es, index=served_names.alias("search"), _source=["npi", "entityType"]
    ):
        assert hit["_id"] == hit["_source"]["npi"]
        keys[hit["_id"]] = hit["_source"]["entityType"]
    listed = sorted(key for key in keys if not key.isdigit())
    assert listed and len(keys) > len(listed)
    for key in (listed[0], min(keys)):
        kind = "Practitioner" if keys[key] == "individual" else "Organization"
        pages = await F.walk(api, kind, [("_id", key)])
        assert [r["id"] for r in F.entries(pages)] == [key]


async def test_unknown_and_inactive_ids_are_not_found(api: ApiClient) -> None:
    known = {r["NPI"] for r in nppes_rows(F.NPPES)}
    inactive = sorted(known - {r["NPI"] for r in F.rows()})[0]
    for kind in ("Practitioner", "PractitionerRole", "Organization"):
        for rid in (inactive, "1234567893", "not-an-npi"):
            outcome = await F.fetch(api, f"/fhir/{kind}/{rid}", status=404)
            assert outcome["issue"][0]["code"] == "not-found"
    assert (await F.walk(api, "Practitioner", [("_id", inactive)]))[0]["total"] == 0
    await F.fetch(api, "/fhir/Patient/1234567893", status=404)
    await F.fetch(api, "/fhir/Patient", status=404)


async def test_a_practitioner_only_the_plan_net_export_lists(api: ApiClient) -> None:
    listed = next(p for p in F.plan_net_people() if len(p.languages) > 1)
    expected = _people(
        lambda r: F.string_match(F.family_terms(r), listed.family),
        lambda p: F.string_match(F.terms([p.family]), listed.family),
    )
    assert listed.npi in expected
    assert sorted(await F.found_ids(api, "Practitioner", [("family", listed.family)])) == sorted(
        expected
    )
    practitioner = await F.fetch(api, f"/fhir/Practitioner/{listed.npi}")
    assert practitioner["name"][0]["family"] == listed.family
    spoken = {c["code"] for item in practitioner["communication"] for c in item["coding"]}
    assert spoken == listed.languages
    [role, *_] = await F.roles_of(api, listed.npi)
    served = {c["code"] for s in role.get("specialty", []) for c in s["coding"]}
    assert served == role_specialties(listed.codes)


async def test_free_text_reads_a_misspelled_specialty(api: ApiClient) -> None:
    """``_text`` is the /v2 search: ranked, so the test asks what every answer has (a cardiology
    taxonomy, by the NUCC table) and that every cardiologist is among them."""
    cardiology = {
        r["Code"]
        for r in F.nucc_rows()
        if "cardi" in f"{r['Classification']} {r['Specialization']} {r['Display Name']}".lower()
    }
    core = {
        r["Code"]
        for r in F.nucc_rows()
        if "Cardiolog" in r["Specialization"] or r["Specialization"] == "Cardiovascular Disease"
    }
    listed = {p.npi: p.codes for p in F.plan_net_people()}
    pages = await F.walk(api, "PractitionerRole", [("_text", "kardiology")], count=10)
    roles = F.entries(pages)
    assert len({r["id"] for r in roles}) == len(roles)
    found = list(dict.fromkeys(F.practitioner_of(r) for r in roles))
    assert len(found) == pages[0]["total"]  # ``_text`` pages are pages of practitioners
    for npi in found:
        assert (listed[npi] if npi in listed else F.codes(F.row_of(npi))) & cardiology, npi
    assert _people(lambda r: bool(F.codes(r) & core), lambda p: bool(p.codes & core)) <= set(found)


async def test_free_text_finds_a_family_name(api: ApiClient) -> None:
    """Ranked and forgiving, so more than ``family`` finds: never fewer."""
    family = _family()
    exact = _people(
        lambda r: F.family_terms(r) == F.terms([family]),
        lambda p: F.terms([p.family]) == F.terms([family]),
    )
    for kind in ("Practitioner", "PractitionerRole"):
        found = await F.found_ids(api, kind, [("_text", family.lower())], count=50)
        assert len(found) == len(set(found)) and exact <= set(found)
