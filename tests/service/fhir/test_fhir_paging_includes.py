"""Location and Organization searches, ``near``, paging, ``_include``/``_revinclude`` and POST
``_search`` of the FHIR API on the NPPES sample loaded with the Plan-Net export. Location sets
are compared by (first address line, ZIP digits), counted: several providers may share an
address; a county plans are sold in (tests.service.fhir.plan_areas) by its FIPS code."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable

import pytest

from tests.conftest import ApiClient
from tests.plan_net_rows import resources
from tests.service.fhir import fhir_rows as F
from tests.service.fhir.fhir_rows import Json, Pairs, Row
from tests.service.fhir.plan_areas import counties_in, fips_of, is_county
from tests.source_rows import miles

Keys = Counter[tuple[str, str]]
Case = tuple[Pairs, Keys]
ORG = "Provider Organization Name (Legal Business Name)"
BAND = 0.01  # miles: a location this close to a radius is left out of the comparison


def _at(rows: list[Row]) -> Keys:
    return Counter(F.place(r).key for r in rows)


def _address_case(param: str, candidates: list[str]) -> Case:
    value = next(v for v in candidates if not F.elsewhere(param, v))
    matched = [r for r in F.rows() if F.string_match(F.place_terms(param, F.place(r)), value)]
    return [(param, value)], _at(matched)


def location_city() -> Case:
    return _address_case("address-city", F.most_common(F.place(r).city for r in F.rows())[3:])


def location_state() -> Case:
    """The state's practice sites, then its counties (a county's address holds its state)."""
    params, sites = _address_case(
        "address-state", F.most_common(F.place(r).state for r in F.rows())
    )
    counties = Counter(("county", fips) for fips in counties_in(params[0][1]))
    return params, sites + counties


def _key(location: Json) -> tuple[str, str]:
    return ("county", fips_of(location)) if is_county(location) else F.location_key(location)


def location_zip5_of_zip9() -> Case:
    zips = F.most_common(F.place(r).zip[:5] for r in F.rows() if len(F.place(r).zip) == 9)
    return _address_case("address-postalcode", zips)


def location_address() -> Case:
    return _address_case("address", F.most_common(F.place(r).line1 for r in F.rows()))


def location_organization() -> Case:
    row = F.organizations()[20]
    return [("organization", f"Organization/{row['NPI']}")], _at([row])


def location_organization_name() -> Case:
    plan_net = F.terms(r.get("name", "") for r in resources("Organization"))
    words = F.most_common(r[ORG].split(" ")[0] for r in F.organizations())
    value = next(w for w in words if not F.string_match(plan_net, w))
    orgs = [r for r in F.organizations() if F.string_match(F.name_terms(r), value)]
    return [("organization.name", value)], _at(orgs)


LOCATION_CASES = [
    location_city,
    location_state,
    location_zip5_of_zip9,
    location_address,
    location_organization,
    location_organization_name,
]


@pytest.mark.parametrize("case", LOCATION_CASES, ids=lambda c: c.__name__[9:])
async def test_location_search(api: ApiClient, case: Callable[[], Case]) -> None:
    params, expected = case()
    pages = await F.walk(api, "Location", params)
    found = F.entries(pages)
    assert expected and Counter(_key(r) for r in found) == expected
    assert len({r["id"] for r in found}) == len(found)
    assert all("total" not in page for page in pages)
    if params[0][0].startswith("organization"):
        assert all(
            r["managingOrganization"]["reference"].startswith("Organization/") for r in found
        )


async def test_locations_by_two_ids(api: ApiClient) -> None:
    listed_elsewhere = {npi for npi, _ in F.dac_places()}
    person = next(r for r in F.individuals()[2:] if r["NPI"] not in listed_elsewhere)
    org = F.organizations()[2]
    wanted = [person, org]
    role = await F.fetch(api, f"/fhir/PractitionerRole/{person['NPI']}")
    params = [("organization", f"Organization/{org['NPI']}")]
    ids = [*_ids(role), *await F.found_ids(api, "Location", params)]
    found = F.entries(await F.walk(api, "Location", [("_id", ",".join(ids))]))
    assert sorted(r["id"] for r in found) == sorted(ids)
    assert Counter(F.location_key(r) for r in found) == _at(wanted)


def _organizations(
    value: str, terms: Callable[[Row], list[str]], modifier: str | None = None
) -> set[str]:
    return {r["NPI"] for r in F.organizations() if F.string_match(terms(r), value, modifier)}


def _plan_net_org_names() -> list[str]:
    return [n for r in resources("Organization") for n in [r.get("name", ""), *r.get("alias", [])]]


# An Organization search answers the provider organisations (NPPES, type prvgrp) and then the
# payers and networks of the plans: the first are compared with the NPPES rows, the others
# must each hold for the search (OrgCase's last element).
OrgCase = tuple[Pairs, set[str], Callable[[Json], bool]]


def _none(_: Json) -> bool:
    return False


def org_name() -> OrgCase:
    words = F.most_common(r[ORG].split(" ")[0] for r in F.organizations())
    value = next(w for w in words if not F.string_match(F.terms(_plan_net_org_names()), w))
    expected = _organizations(value, F.name_terms)
    return (
        [("name", value.lower())],
        expected,
        lambda r: F.string_match(F.terms([r["name"]]), value),
    )


def org_address() -> OrgCase:
    cities = F.most_common(F.place(r).city for r in F.organizations())
    value = next(c for c in cities if not F.elsewhere("address", c))
    expected = _organizations(value, lambda r: F.address_terms(F.place(r)))
    return [("address", value)], expected, _none


def org_type() -> OrgCase:
    params, expected, _ = org_name()
    system = "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/OrgTypeCS"
    return [*params, ("type", f"{system}|prvgrp")], expected, _none


def org_ids() -> OrgCase:
    npis = {F.organizations()[1]["NPI"], F.organizations()[-1]["NPI"]}
    return [("_id", ",".join(sorted(npis)))], npis, _none


@pytest.mark.parametrize(
    "case",
    [org_name, org_address, org_type, org_ids],
    ids=lambda c: c.__name__[4:],
)
async def test_organization_search(api: ApiClient, case: Callable[[], OrgCase]) -> None:
    params, expected, plan_organization_matches = case()
    pages = await F.walk(api, "Organization", params)
    found = F.entries(pages)
    providers = [r for r in found if F.is_provider(r)]
    assert expected and sorted(r["id"] for r in providers) == sorted(expected)
    assert found[: len(providers)] == providers  # providers first, then payers and networks
    others = found[len(providers) :]
    assert all(plan_organization_matches(r) for r in others), [r["id"] for r in others]
    assert pages[0]["total"] == len(found)


async def test_an_organization_type_other_than_provider_matches_nothing(api: ApiClient) -> None:
    body = await F.fetch(api, "/fhir/Organization", [("type", "fac")])
    assert body["total"] == 0


# ---- near: the expected set is what a wide search returns, filtered by the distance between
# the point and each location's position as the service returns it (ZIP centroids for NPPES
# addresses): the positions are the service's, only the distance is computed here. The wide
# search is one state far from its borders, so no location of another state is in reach.


def _ids(role: Json) -> set[str]:
    return {loc["reference"].removeprefix("Location/") for loc in role["location"]}


def _position(location: Json) -> tuple[float, float]:
    return location["position"]["latitude"], location["position"]["longitude"]


async def _wide(api: ApiClient) -> tuple[tuple[float, float], list[Json], list[Json]]:
    """The practice sites and the roles of the state only the NPPES sample has, and its middle
    (the state's counties have no position: ``near`` never finds them)."""
    (_, state), *_ = location_state()[0]
    found = F.entries(await F.walk(api, "Location", [("address-state", state)]))
    locations = [loc for loc in found if not is_county(loc)]
    roles = F.entries(await F.walk(api, "PractitionerRole", [("location.address-state", state)]))
    points = [_position(loc) for loc in locations]
    middle = (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))
    return (round(middle[0], 4), round(middle[1], 4)), roles, locations


def _within(
    center: tuple[float, float], radius: float, locations: list[Json]
) -> tuple[set[str], set[str]]:
    """Ids of the locations inside the radius, and of those too close to it to tell."""
    distances = {loc["id"]: miles(center, _position(loc)) for loc in locations}
    unsure = {i for i, d in distances.items() if abs(d - radius) < BAND}
    return {i for i, d in distances.items() if d <= radius} - unsure, unsure


@pytest.mark.parametrize(
    ("distance", "radius"), [("|10|mi", 10.0), ("|16|km", 16 * 0.621371), ("", 25.0)]
)
async def test_near(api: ApiClient, distance: str, radius: float) -> None:
    center, roles, locations = await _wide(api)
    near = f"{center[0]}|{center[1]}{distance}"
    inside, unsure = _within(center, radius, locations)
    assert inside and (radius >= 25 or len(inside) < len(locations))
    location_pages = await F.walk(api, "Location", [("near", near)])
    found = F.entries(location_pages)
    assert {r["id"] for r in found} - unsure == inside
    per_unit = 0.621371 if "km" in distance else 1.0
    by_id = {loc["id"]: loc for loc in locations}
    for rid, far in _told_miles(location_pages, per_unit).items():
        assert abs(far - miles(center, _position(by_id[rid]))) < BAND
    role_pages = await F.walk(api, "PractitionerRole", [("near", near)])
    expected = {r["id"] for r in roles if _ids(r) & inside}
    found_roles = F.entries(role_pages)
    assert {r["id"] for r in found_roles} == expected
    nearest = [
        min(miles(center, _position(by_id[i])) for i in _ids(r) if i in by_id) for r in found_roles
    ]
    assert all(a <= b + BAND for a, b in itertools.pairwise(nearest))
    told = _told_miles(role_pages, per_unit)
    assert all(abs(told[r["id"]] - d) < BAND for r, d in zip(found_roles, nearest, strict=True))


def _told_miles(pages: list[Json], per_unit: float) -> dict[str, float]:
    """Each match's location-distance extension, in miles."""
    told: dict[str, float] = {}
    for entry in (e for p in pages for e in p["entry"] if e["search"]["mode"] == "match"):
        [extension] = entry["search"]["extension"]
        assert extension["url"] == "http://hl7.org/fhir/StructureDefinition/location-distance"
        told[entry["resource"]["id"]] = extension["valueDistance"]["value"] * per_unit
    return told


# ---- paging ----


async def _pages_agree(api: ApiClient, kind: str, params: Pairs) -> list[Json]:
    small = await F.walk(api, kind, params, count=7)
    whole = F.entries(await F.walk(api, kind, params))
    assert len(small) > 3
    assert all(len(F.entries([page])) == 7 for page in small[:-1])
    ids = [r["id"] for r in F.entries(small)]
    assert len(ids) == len(set(ids)) and sorted(ids) == sorted(r["id"] for r in whole)
    return small


async def test_paging_practitioner_roles(api: ApiClient) -> None:
    params, _ = location_state()
    asked = [(f"location.{params[0][0]}", params[0][1])]
    small = await _pages_agree(api, "PractitionerRole", asked)
    counted = await F.fetch(api, "/fhir/PractitionerRole", [*asked, ("_summary", "count")])
    assert counted["total"] == len(F.entries(small))


async def test_paging_locations_of_many_providers(api: ApiClient) -> None:
    """The city the Plan-Net export lists most: hundreds of locations, pages of 7."""
    cities = Counter(at.city for at in F.other_places() if at.city)
    await _pages_agree(api, "Location", [("address-city", cities.most_common(1)[0][0])])


async def test_a_page_may_end_inside_a_provider_s_locations(api: ApiClient) -> None:
    """Individuals a Doctors & Clinicians file lists in another city than NPPES have two
    locations or more: pages of one or two split them."""
    spread = sorted(
        {
            npi
            for npi, at in F.dac_places()
            if (row := F.row_by_npi().get(npi)) is not None
            and row["Entity Type Code"] == "1"
            and at.city.upper() != F.place(row).city.upper()
        }
    )[:3]
    ids = [i for npi in spread for i in _ids(await F.fetch(api, f"/fhir/PractitionerRole/{npi}"))]
    assert len(ids) >= 2 * len(spread) >= 6
    params = [("_id", ",".join(ids))]
    for count in (1, 2, 5):
        pages = await F.walk(api, "Location", params, count=count)
        found = [r["id"] for r in F.entries(pages)]
        assert len(found) == len(set(found)) and sorted(found) == sorted(ids)
        assert len(pages) == -(-len(ids) // count)


async def test_paging_by_distance(api: ApiClient) -> None:
    center, _, _ = await _wide(api)
    near = f"{center[0]}|{center[1]}|25|mi"
    await _pages_agree(api, "PractitionerRole", [("near", near)])
    await _pages_agree(api, "Location", [("near", near)])


# ---- what a search brings along ----


def _no_duplicates(pages: list[Json]) -> None:
    for page in pages:
        keys = [(e["resource"]["resourceType"], e["resource"]["id"]) for e in page.get("entry", [])]
        assert len(keys) == len(set(keys))


async def test_include_a_role_s_practitioner_and_locations(api: ApiClient) -> None:
    params, _ = location_city()
    includes = [
        ("_include", "PractitionerRole:practitioner"),
        ("_include", "PractitionerRole:location"),
    ]
    pages = await F.walk(
        api, "PractitionerRole", [(f"location.{params[0][0]}", params[0][1]), *includes], count=10
    )
    _no_duplicates(pages)
    for page in pages:
        roles, included = F.entries([page]), F.entries([page], "include")
        wanted = {r["practitioner"]["reference"] for r in roles}
        wanted |= {loc["reference"] for r in roles for loc in r["location"]}
        assert {f"{r['resourceType']}/{r['id']}" for r in included} == wanted


async def test_include_a_location_s_organization(api: ApiClient) -> None:
    params, _ = location_organization_name()
    pages = await F.walk(api, "Location", [*params, ("_include", "Location:organization")])
    _no_duplicates(pages)
    orgs = F.entries(pages, "include")
    wanted = {r["managingOrganization"]["reference"] for r in F.entries(pages)}
    assert {f"Organization/{r['id']}" for r in orgs} == wanted
    names = {r["NPI"] for r in F.organizations() if F.string_match(F.name_terms(r), params[0][1])}
    assert {r["id"] for r in orgs} == names


async def test_revinclude_a_practitioner_s_role(api: ApiClient) -> None:
    family = F.most_common(r["Provider Last Name (Legal Name)"] for r in F.individuals())[4]
    pages = await F.walk(
        api, "Practitioner", [("family", family), ("_revinclude", "PractitionerRole:practitioner")]
    )
    _no_duplicates(pages)
    roles = F.entries(pages, "include")
    assert all(r["resourceType"] == "PractitionerRole" for r in roles)
    assert sorted(r["id"] for r in roles) == sorted(r["id"] for r in F.entries(pages))


async def test_revinclude_the_roles_at_a_location(api: ApiClient) -> None:
    params, _ = location_zip5_of_zip9()
    pages = await F.walk(api, "Location", [*params, ("_revinclude", "PractitionerRole:location")])
    _no_duplicates(pages)
    at = {r["id"] for r in F.entries(pages)}
    roles = F.entries(pages, "include")
    zip5 = params[0][1]
    people = {r["NPI"] for r in F.individuals() if F.place(r).zip.startswith(zip5)}
    assert {r["id"] for r in roles} == people
    assert all(_ids(r) & at for r in roles)


async def test_revinclude_an_organization_s_locations(api: ApiClient) -> None:
    (_, value), *_ = location_organization_name()[0]
    pages = await F.walk(
        api, "Organization", [("name", value), ("_revinclude", "Location:organization")]
    )
    _no_duplicates(pages)
    orgs = [r for r in F.organizations() if F.string_match(F.name_terms(r), value)]
    locations = F.entries(pages, "include")
    providers = [r for r in F.entries(pages) if F.is_provider(r)]  # not payers, networks
    assert sorted(r["id"] for r in providers) == sorted(r["NPI"] for r in orgs)
    assert Counter(F.location_key(r) for r in locations) == _at(orgs)


@pytest.mark.parametrize(
    ("kind", "params"),
    [
        ("Practitioner", [("family", "gar"), ("given", "m")]),
        ("Location", [("address-state", "NH"), ("_include", "Location:organization")]),
        (
            "PractitionerRole",
            [("specialty", "207RC0000X"), ("_include", "PractitionerRole:location")],
        ),
    ],
)
async def test_post_search_answers_as_get(api: ApiClient, kind: str, params: Pairs) -> None:
    got = await F.fetch(api, f"/fhir/{kind}", [*params, ("_count", "5")])
    response = await api.post(f"/fhir/{kind}/_search", data=[*params, ("_count", "5")])
    assert response.status == 200 and response.content_type == F.FHIR_CONTENT_TYPE
    posted = await response.json(content_type=None)
    assert posted["entry"] and posted == got


async def test_paging_organizations_then_payers_and_networks(api: ApiClient) -> None:
    """Provider organisations first, then the plans' payers and networks: pages of 7 cross
    from one to the other without losing or repeating one."""
    small = await _pages_agree(api, "Organization", [("name", "a")])
    found = F.entries(small)
    providers = [r["id"] for r in found if F.is_provider(r)]
    starts = {r["NPI"] for r in F.organizations() if F.string_match(F.name_terms(r), "a")}
    assert set(providers) >= starts and len(found) > len(providers)


@pytest.mark.parametrize(("params", "count"), [([], 100), ([("name", "a")], 7)])
async def test_an_organization_search_s_total_counts_every_match(
    api: ApiClient, params: Pairs, count: int
) -> None:
    pages = await F.walk(api, "Organization", params, count=count)
    walked = len(F.entries(pages))
    at_zero = await F.fetch(api, "/fhir/Organization", [*params, ("_count", "0")])
    assert at_zero["total"] == walked
    assert all(page["total"] == walked for page in pages if "total" in page)


async def test_a_resource_found_is_the_resource_read(api: ApiClient) -> None:
    searches: list[tuple[str, Pairs]] = [
        ("Practitioner", [("family", "gar")]),
        ("PractitionerRole", [("specialty", "207RC0000X")]),
        ("Organization", [("name", "a")]),
        ("Location", [("address-state", "NH")]),
    ]
    for kind, params in searches:
        for resource in F.entries(await F.walk(api, kind, params))[:40]:
            assert await F.fetch(api, f"/fhir/{kind}/{resource['id']}") == resource


async def test_free_text_answers_the_resource_read(api: ApiClient) -> None:
    listed = next(p for p in F.plan_net_people() if p.given)
    [role, *_] = await F.roles_of(api, listed.npi)
    assert any(e["url"].endswith("/network-reference") for e in role.get("extension", []))
    text = f"{listed.given[0]} {listed.family}"
    found = F.entries(await F.walk(api, "PractitionerRole", [("_text", text)]))
    assert [r for r in found if r["id"] == role["id"]] == [role]
