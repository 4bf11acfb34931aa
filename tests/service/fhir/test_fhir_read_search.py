"""Reads and searches of the FHIR Plan-Net API on the NPPES sample loaded with the Plan-Net
export: every expected set is read from the source files (tests.service.fhir.fhir_rows), and
every search is walked to its last page."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

import pytest
from fhir.resources.R4B.capabilitystatement import CapabilityStatement
from fhir.resources.R4B.searchparameter import SearchParameter

from core.plan_net_codes import PROVIDER_ROLES
from service.fhir.models import INCLUDES, PARAMETERS, REVINCLUDES
from tests.conftest import ApiClient
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
    return lower[:at] + {"a": "á", "e": "é", "i": "í", "o": "ó", "u": "ú"}[lower[at]] + lower[at + 1 :]


def _median_day() -> date:
    days = sorted(F.last_updated(r) for r in F.individuals())
    return days[len(days) // 2]


def _updated(test: Callable[[date], bool]) -> set[str]:
    return _people(lambda r: test(F.last_updated(r)), lambda p: test(p.updated))


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
    return _name_case(_unambiguous([n[:4] for n in F.most_common(r[LAST] for r in F.individuals())]))


def case_name_exact() -> Case:
    return _name_case(_unambiguous(F.most_common(r[LAST] for r in F.individuals())[1:], "exact"), "exact")


def case_name_contains() -> Case:
    names = F.most_common(r[LAST] for r in F.individuals() if len(r[LAST]) > 6)
    return _name_case(_unambiguous([n[2:6] for n in names], "contains"), "contains")


def case_name_accented() -> Case:
    value = _accented(_family())
    assert value != _family().lower()
    return _name_case(value)


def case_last_updated_ge() -> Case:
    day = _median_day()
    return [("_lastUpdated", f"ge{day}")], _updated(lambda d: d >= day)


def case_last_updated_lt() -> Case:
    day = _median_day()
    return [("_lastUpdated", f"lt{day}")], _updated(lambda d: d < day)


def case_last_updated_window() -> Case:
    day = _median_day()
    params = [("_lastUpdated", f"gt{day}"), ("_lastUpdated", f"le{day + timedelta(days=3)}")]
    return params, _updated(lambda d: day < d <= day + timedelta(days=3))


def case_last_updated_day() -> Case:
    day = _median_day()
    return [("_lastUpdated", day.isoformat())], _updated(lambda d: d == day)


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
    case_last_updated_ge,
    case_last_updated_lt,
    case_last_updated_window,
    case_last_updated_day,
    case_two_ids,
]


@pytest.mark.parametrize("case", PRACTITIONER_CASES, ids=lambda c: c.__name__[5:])
async def test_practitioner_search(api: ApiClient, case: Callable[[], Case]) -> None:
    params, expected = case()
    pages = await F.walk(api, "Practitioner", params)
    found = [r["id"] for r in F.entries(pages)]
    assert expected and sorted(found) == sorted(expected)
    assert pages[0]["total"] == len(expected)


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
    expected = {r["NPI"] for r in F.individuals() if F.string_match(F.place_terms(param, F.place(r)), value)}
    return [(f"location.{param}", value)], expected


def role_specialty() -> Case:
    code = next(c for c in F.most_common(c for r in F.individuals() for c in F.codes(r)))
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
    return _city_case("address-postalcode", F.most_common(F.place(r).zip[:5] for r in F.individuals()))


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
    assert expected and sorted(r["id"] for r in roles) == sorted(expected)
    assert pages[0]["total"] == len(expected)
    for role in roles:
        npi = role["id"]
        listed = next((p for p in F.plan_net_people() if p.npi == npi), None)
        sources = listed.codes if listed else F.codes(F.row_of(npi))
        assert {c["code"] for s in role["specialty"] for c in s["coding"]} == sources


async def test_a_specialty_of_another_system_matches_nothing(api: ApiClient) -> None:
    pages = await F.walk(api, "PractitionerRole", [("specialty", "http://example.org/x|207RC0000X")])
    assert pages[0]["total"] == 0 and "entry" not in pages[0]


async def test_practitioner_role_by_location(api: ApiClient) -> None:
    row = F.individuals()[7]
    role = await F.fetch(api, f"/fhir/PractitionerRole/{row['NPI']}")
    [ref] = [loc["reference"] for loc in role["location"]]
    found = await F.found_ids(api, "PractitionerRole", [("location", ref)])
    assert found == [row["NPI"]]
    location = await F.fetch(api, f"/fhir/{ref}")
    assert F.location_key(location) == F.place(row).key


def _organizations(value: str, terms: Callable[[Row], list[str]], modifier: str | None = None) -> set[str]:
    return {r["NPI"] for r in F.organizations() if F.string_match(terms(r), value, modifier)}


def _plan_net_org_names() -> list[str]:
    return [
        n
        for r in F.resources("Organization")
        for n in [r.get("name", ""), *r.get("alias", [])]
    ]


def org_name() -> Case:
    words = F.most_common(r[ORG].split(" ")[0] for r in F.organizations())
    value = next(w for w in words if not F.string_match(F.terms(_plan_net_org_names()), w))
    return [("name", value.lower())], _organizations(value, F.name_terms)


def org_address() -> Case:
    cities = F.most_common(F.place(r).city for r in F.organizations())
    value = next(c for c in cities if not F.elsewhere("address", c))
    return [("address", value)], _organizations(value, lambda r: F.address_terms(F.place(r)))


def org_type() -> Case:
    params, expected = org_address()
    return [*params, ("type", "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/OrgTypeCS|prov")], expected


def org_last_updated() -> Case:
    day = sorted(F.last_updated(r) for r in F.organizations())[-20]
    return [("_lastUpdated", f"ge{day}")], {r["NPI"] for r in F.organizations() if F.last_updated(r) >= day}


@pytest.mark.parametrize("case", [org_name, org_address, org_type, org_last_updated], ids=lambda c: c.__name__[4:])
async def test_organization_search(api: ApiClient, case: Callable[[], Case]) -> None:
    params, expected = case()
    pages = await F.walk(api, "Organization", params)
    assert expected and sorted(r["id"] for r in F.entries(pages)) == sorted(expected)
    assert pages[0]["total"] == len(expected)


async def test_an_organization_type_other_than_provider_matches_nothing(api: ApiClient) -> None:
    body = await F.fetch(api, "/fhir/Organization", [("type", "fac")])
    assert body["total"] == 0
