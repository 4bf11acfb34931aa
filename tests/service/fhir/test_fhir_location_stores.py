"""A Location search answers from both stores Locations live in, on a real Elasticsearch: the
practice sites (the NPPES sample's addresses) and then the counties the plans are sold in
(jurisdiction Locations). The counties of New Hampshire and their FIPS codes are read from the
Plan Finder ZIP and county files with plain CSV, the practice sites from the NPPES rows."""

from __future__ import annotations

import csv
from collections import Counter
from functools import cache

import pytest
from yarl import URL

from tests.conftest import SAMPLE_DIR, ApiClient
from tests.plan_net_rows import resources
from tests.service.fhir import fhir_rows as F
from tests.service.fhir.fhir_rows import Json, Pairs
from tests.service.fhir.plan_areas import is_county
from tests.source_rows import canonical_bid

STATE = "NH"
FIPS_SYSTEM = "urn:oid:2.16.840.1.113883.6.93"
ZIP_FILE = SAMPLE_DIR / "medicare_plan_finder_2026_zip_plan.csv"
COUNTY_FILE = SAMPLE_DIR / "medicare_plan_finder_2026_plan_county.csv"
YEAR = 2026
SUBSETTED = "SUBSETTED"


def _rows(path: str) -> list[dict[str, str]]:
    with open(SAMPLE_DIR / path, encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


@cache
def state_counties() -> dict[str, str]:
    """County name -> FIPS code of every New Hampshire county a plan is sold in: the ZIP file
    names each ZIP's county and its code, the county file names counties (codes from the ZIP
    file's rows of the same name)."""
    codes = {r["county"]: r["fips"] for r in _rows(ZIP_FILE.name) if r["state_dir"] == STATE}
    named = {r["county"] for r in _rows(COUNTY_FILE.name) if r["state_dir"] == STATE}
    assert named <= set(codes), named - set(codes)
    assert all(len(code) == 5 and code.isdigit() for code in codes.values())
    return codes


def _county_id(name: str) -> str:
    return f"county-{state_counties()[name]}"


def _plans_sold_in(name: str) -> set[str]:
    """The InsurancePlans the files sell in a New Hampshire county: its ZIPs' rows and its
    rows of the county file."""
    fips = state_counties()[name]
    bids = {r["bid_id"] for r in _rows(ZIP_FILE.name) if r["fips"] == fips}
    bids |= {
        r["bid_id"]
        for r in _rows(COUNTY_FILE.name)
        if r["state_dir"] == STATE and r["county"] == name
    }
    return {f"{YEAR}-{canonical_bid(bid).replace('_', '-')}" for bid in bids}


def _sites_at(value: str, param: str = "address-state") -> Counter[tuple[str, str]]:
    """The NPPES practice sites a Location address parameter matches, by (line, ZIP). Plan-Net
    lists its practice sites as Locations, the Doctors & Clinicians files as rows: none of them
    is in New Hampshire (a Plan-Net Practitioner's own address is no practice site)."""
    others = [*(at for _, at in F.dac_places()), *map(_plan_net_site, resources("Location"))]
    assert not any(F.string_match(F.place_terms(param, at), value) for at in others)
    rows = [r for r in F.rows() if F.string_match(F.place_terms(param, F.place(r)), value)]
    return Counter(F.place(r).key for r in rows)


def _plan_net_site(location: Json) -> F.Place:
    address = location.get("address", {})
    lines = [*address.get("line", []), "", ""]
    city, state, zip_code = (str(address.get(k, "")) for k in ("city", "state", "postalCode"))
    return F.Place(lines[0], lines[1], city, state, zip_code)


def _split(found: list[Json]) -> tuple[list[Json], list[Json]]:
    sites = [r for r in found if not is_county(r)]
    return sites, [r for r in found if is_county(r)]


async def test_a_state_s_practice_sites_then_its_counties_page_by_page(api: ApiClient) -> None:
    params: Pairs = [("address-state", STATE)]
    pages = await F.walk(api, "Location", params, count=7)
    found = F.entries(pages)
    sites, counties = _split(found)
    assert Counter(F.location_key(r) for r in sites) == _sites_at(STATE)
    assert sorted(r["id"] for r in counties) == sorted(map(_county_id, state_counties()))
    assert found == [*sites, *counties]  # the practice sites first, then the counties
    ids = [r["id"] for r in found]
    assert len(ids) == len(set(ids))
    assert all(len(F.entries([page])) == 7 for page in pages[:-1])
    assert len(pages) == -(-len(found) // 7)
    by_id = {r["id"]: r for r in counties}
    for name in state_counties():
        county = by_id[_county_id(name)]
        assert county["address"]["state"] == STATE
        assert county["address"]["district"].startswith(name)
        assert await F.fetch(api, f"/fhir/Location/{county['id']}") == county
    counted = await F.fetch(api, "/fhir/Location", [*params, ("_summary", "count")])
    assert counted["total"] == len(found)


async def test_a_page_ending_with_the_last_practice_site_leads_to_the_counties(
    api: ApiClient,
) -> None:
    """Pages of a size the state's practice sites fill exactly: the counties start a page."""
    sites = sum(_sites_at(STATE).values())
    count = next(n for n in range(3, sites) if sites % n == 0)
    pages = await F.walk(api, "Location", [("address-state", STATE)], count=count)
    first_counties = sites // count
    assert not any(is_county(r) for r in F.entries(pages[:first_counties]))
    assert all(is_county(r) for r in F.entries(pages[first_counties:]))
    found = [r["id"] for r in F.entries(pages[first_counties:])]
    assert sorted(found) == sorted(map(_county_id, state_counties()))


async def test_a_county_by_its_id_identifier_and_last_change(api: ApiClient) -> None:
    wanted = [_county_id("Hillsborough"), _county_id("Merrimack")]
    assert sorted(await F.found_ids(api, "Location", [("_id", ",".join(wanted))])) == wanted
    fips = state_counties()["Hillsborough"]
    for value in (f"{FIPS_SYSTEM}|{fips}", fips):
        found = await F.found_ids(api, "Location", [("identifier", value)])
        assert found == [_county_id("Hillsborough")]
    assert await F.found_ids(api, "Location", [("identifier", f"other|{fips}")]) == []
    one = [("_id", wanted[0])]
    assert await F.found_ids(api, "Location", [*one, ("_lastUpdated", "lt2100")]) == wanted[:1]
    assert await F.found_ids(api, "Location", [*one, ("_lastUpdated", "gt2100")]) == []


async def test_an_address_finds_a_county_by_its_name(api: ApiClient) -> None:
    """A county's address is its district (the county's name) and its state."""
    name = "Hillsborough"
    elsewhere = {
        r["county"]
        for f in (ZIP_FILE, COUNTY_FILE)
        for r in _rows(f.name)
        if r["state_dir"] != STATE
    }
    assert not any(other.lower().startswith(name.lower()) for other in elsewhere)
    found = F.entries(await F.walk(api, "Location", [("address", name.lower())]))
    sites, counties = _split(found)
    assert [r["id"] for r in counties] == [_county_id(name)]
    assert Counter(F.location_key(r) for r in sites) == _sites_at(name, "address")
    whole = F.entries(await F.walk(api, "Location", [("address:exact", f"{name} County {STATE}")]))
    assert [r["id"] for r in whole] == [_county_id(name)]


# What a county cannot satisfy (it has no city, ZIP, managing organisation or position): each
# of these, with the state, finds practice sites of the state and none of its counties.
EXCLUDING: list[Pairs] = [
    [("address-city", "concord")],
    [("address-postalcode", "03")],
    [("organization.type", "prvgrp")],
    [("near", "43.2081|-71.5376|100|mi")],  # Concord, NH: the whole state within 100 miles
]


@pytest.mark.parametrize("excluding", EXCLUDING, ids=lambda p: p[0][0])
async def test_a_parameter_a_county_cannot_match_leaves_the_counties_out(
    api: ApiClient, excluding: Pairs
) -> None:
    state: Pairs = [("address-state", STATE)]
    _, counties = _split(F.entries(await F.walk(api, "Location", state)))
    assert counties
    found = F.entries(await F.walk(api, "Location", [*state, *excluding]))
    assert found and not any(is_county(r) for r in found)
    assert all(r["address"]["state"] == STATE for r in found)


async def test_counties_bring_along_the_plans_sold_in_them(api: ApiClient) -> None:
    params: Pairs = [
        ("_id", _county_id("Hillsborough")),
        ("_revinclude", "InsurancePlan:coverage-area"),
        ("_include", "Location:organization"),
    ]
    pages = await F.walk(api, "Location", params)
    assert [r["id"] for r in F.entries(pages)] == [_county_id("Hillsborough")]
    included = F.entries(pages, "include")
    assert all(r["resourceType"] == "InsurancePlan" for r in included)  # no organisation
    assert {r["id"] for r in included} == _plans_sold_in("Hillsborough")


async def test_counties_are_reduced_as_the_other_locations(api: ApiClient) -> None:
    """``_elements`` keeps what is asked, ``_summary=true`` R4's summary elements (a Location's
    identifier and physicalType, not its address); both tag the county SUBSETTED."""
    wanted = sorted(map(_county_id, state_counties()))
    state: Pairs = [("address-state", STATE)]
    for subset, kept, dropped in (
        (("_elements", "name"), {"name"}, {"address", "physicalType", "identifier"}),
        (("_summary", "true"), {"name", "physicalType", "identifier"}, {"address"}),
    ):
        found = F.entries(await _walk_reduced(api, [*state, subset]))
        counties = [r for r in found if r["id"] in wanted]
        assert sorted(r["id"] for r in counties) == wanted
        for county in counties:
            assert kept <= set(county) and not dropped & set(county), county
            assert SUBSETTED in [tag["code"] for tag in county["meta"]["tag"]]


async def _walk_reduced(api: ApiClient, params: Pairs) -> list[Json]:
    """Every page of a Location search whose resources are reduced (F.walk checks them whole)."""
    pages: list[Json] = []
    path = "/fhir/Location"
    query: Pairs | None = [*params, ("_count", "50")]
    while path:
        response = await api.get(path, params=query or [])
        assert response.status == 200
        pages.append(await response.json(content_type=None))
        nxt = [link["url"] for link in pages[-1]["link"] if link["relation"] == "next"]
        path, query = (URL(nxt[0]).path_qs, None) if nxt else ("", None)
        assert len(pages) < 50
    return pages
