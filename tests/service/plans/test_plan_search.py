"""POST /v2/plans/search on the loaded sample: the plans offered in an area, their costs and
ratings, filters and paging, checked against the Plan Finder and star rating files read here
(tests/service/plans/plan_files.py), never through the indexer. The NPIs' statuses and the
orders: test_plan_statuses.py; cursors, page sizes and bid ids: test_plan_edges.py."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.conftest import ApiClient
from tests.service.plans import network_files, plan_files
from tests.service.plans.conftest import PLAN_SEARCH, every_page, search

EVERY_KIND = {"planTypes": ["H", "R", "E", "S"], "snp": "include"}


def sample_zips(state: str, count: int) -> list[str]:
    zips = sorted({r["zip"] for r in plan_files.zip_rows() if r["state_dir"] == state})
    return zips[:: max(1, len(zips) // count)][:count]


@pytest.mark.parametrize("zip_code", sample_zips("NH", 6) + sample_zips("SC", 6))
async def test_a_zip_answers_the_plan_finder_plans_of_that_zip(
    api: ApiClient, auth_header: dict[str, str], zip_code: str
) -> None:
    answer = await search(api, auth_header, zip=zip_code, pageSize=100, **EVERY_KIND)
    expected = plan_files.plans_by_zip()[zip_code]
    assert {p["bidId"] for p in answer["results"]} == expected
    assert answer["totalCount"] == len(expected) and answer["nextCursor"] is None
    assert answer["area"]["zip"] == zip_code and answer["contractYear"] == 2026
    assert answer["area"]["state"] == next(
        r["state_dir"] for r in plan_files.zip_rows() if r["zip"] == zip_code
    )


async def test_default_filters_leave_out_drug_plans_and_special_needs_plans(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    zip_code = "03031"
    everything = plan_files.plans_by_zip()[zip_code]
    default = await search(api, auth_header, zip=zip_code, pageSize=100)
    snp_only = await search(api, auth_header, zip=zip_code, pageSize=100, snp="only")
    drug = await search(
        api, auth_header, zip=zip_code, pageSize=100, planTypes=["S"], snp="include"
    )
    special = {b for b in everything if plan_files.is_special_needs(plan_files.plans()[b])}
    drug_plans = {b for b in everything if b.startswith("S")}
    assert special and drug_plans
    assert {p["bidId"] for p in default["results"]} == everything - special - drug_plans
    assert {p["bidId"] for p in snp_only["results"]} == special - drug_plans
    assert {p["bidId"] for p in drug["results"]} == drug_plans - special
    assert all(p["specialNeeds"] for p in snp_only["results"])


async def test_money_and_stars_equal_the_files(api: ApiClient, auth_header: dict[str, str]) -> None:
    answered = await search(api, auth_header, zip="29201", pageSize=100, **EVERY_KIND)
    assert answered["results"]
    for plan in answered["results"]:
        row = plan_files.plans()[plan["bidId"]]
        assert plan["monthlyPremium"] == plan_files.dollars(row["total_monthly_premium"])
        assert plan["healthDeductible"] == plan_files.dollars(row["health_deductible"])
        assert plan["drugDeductible"] == plan_files.dollars(row["drug_deductible"])
        in_network, combined = plan_files.out_of_pocket(row["moop"])
        assert plan["maxOutOfPocket"] == {"inNetwork": in_network, "combined": combined}
        star = plan_files.star_rows().get((row["contract_id"], 2026))
        if star is None:
            assert plan["starRating"] is None
        else:
            assert plan["starRating"] == {
                "overall": plan_files.stars(star["overall_stars"]),
                "partC": plan_files.stars(star["part_c_stars"]),
                "partD": plan_files.stars(star["part_d_stars"]),
                "year": 2026,
            }
    # A hand-worked plan: "$10,000 In and Out-of-network | $6,150 In-network" and so on.
    detail = await api.get("/v2/plans/H0104-016-000", headers=auth_header)
    plan = await detail.json()
    assert (plan["monthlyPremium"], plan["healthDeductible"], plan["drugDeductible"]) == (
        0.0,
        285.0,
        325.0,
    )
    assert plan["maxOutOfPocket"] == {"inNetwork": 6150.0, "combined": 10000.0}


@pytest.mark.parametrize("sort", ["providers", "premium", "stars"])
async def test_paging_walks_every_plan_once(
    api: ApiClient, auth_header: dict[str, str], sort: str
) -> None:
    body: dict[str, Any] = {"zip": "29201", "sort": sort, **EVERY_KIND}
    whole = await search(api, auth_header, pageSize=100, **body)
    paged = await every_page(api, auth_header, pageSize=7, **body)
    assert [p["bidId"] for p in paged] == [p["bidId"] for p in whole["results"]]
    assert len({p["bidId"] for p in paged}) == whole["totalCount"] > 7


async def test_premium_and_stars_filters(api: ApiClient, auth_header: dict[str, str]) -> None:
    """A plan passes by the plan file's premium and the star file's overall rating; one whose
    premium or rating is unknown does not."""
    offered = plan_files.plans_by_zip()["29201"]
    body: dict[str, Any] = {"zip": "29201", "pageSize": 100, **EVERY_KIND}
    cheap = await search(api, auth_header, maxMonthlyPremium=20, **body)
    rated = await search(api, auth_header, minStars=4, **body)
    expected_cheap = {b for b in offered if network_files.premium(b) <= 20}
    expected_rated = {b for b in offered if network_files.stars(b) >= 4}
    assert {p["bidId"] for p in cheap["results"]} == expected_cheap
    assert {p["bidId"] for p in rated["results"]} == expected_rated
    assert 0 < len(expected_cheap) < len(offered) and 0 < len(expected_rated) < len(offered)
    unknown_premium = {b for b in offered if network_files.premium(b) == math.inf}
    unrated = {b for b in offered if network_files.stars(b) == -math.inf}
    assert unknown_premium and unrated  # plans the filters leave out for not knowing


async def test_a_county_answers_its_plans(api: ApiClient, auth_header: dict[str, str]) -> None:
    # Hillsborough County, NH: its ZIPs' rows (the ZIP file gives the FIPS code) and its rows
    # of the county file.
    expected = {plan_files.bid(r["bid_id"]) for r in plan_files.zip_rows() if r["fips"] == "33011"}
    expected |= {
        plan_files.bid(r["bid_id"])
        for r in plan_files.county_rows()
        if r["state_dir"] == "NH" and r["county"] == "Hillsborough"
    }
    answer = await search(api, auth_header, countyFips="33011", pageSize=100, **EVERY_KIND)
    assert {p["bidId"] for p in answer["results"]} == expected
    assert answer["area"] == {
        "zip": None,
        "countyFips": "33011",
        "countyName": "Hillsborough County",
        "state": "NH",
    }


async def test_a_zip_without_plans_says_why(api: ApiClient, auth_header: dict[str, str]) -> None:
    answer = await search(api, auth_header, zip="10013")  # Manhattan: no plan file covers NY
    assert answer["totalCount"] == 0 and answer["results"] == []
    assert answer["noResults"]["code"] == "no_plan_offered"
    assert answer["area"]["state"] == "NY"
    offered = plan_files.plans_by_zip()["03031"]
    assert not {b for b in offered if network_files.stars(b) >= 5}  # so none passes minStars 5
    filtered = await search(api, auth_header, zip="03031", minStars=5, **EVERY_KIND)
    assert filtered["totalCount"] == 0 and filtered["results"] == []
    assert filtered["noResults"]["code"] == "no_plan_matches"
    assert str(len(offered)) in filtered["noResults"]["detail"]  # how many are offered


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ({"zip": "00000"}, 404, "area_not_found", "zip"),
        ({"countyFips": "99999"}, 404, "area_not_found", "countyFips"),
        ({"zip": "03031", "countyFips": "33011"}, 400, "validation_error", "countyFips"),
        ({"npis": [{"npi": "1003000100"}]}, 400, "validation_error", "zip"),
        ({"zip": "3031"}, 400, "validation_error", "zip"),
        (
            {"zip": "03031", "npis": [{"npi": f"{1003000000 + i:010d}"} for i in range(26)]},
            400,
            "validation_error",
            "npis",
        ),
        ({"cursor": "not-a-cursor"}, 404, "cursor_not_found", "cursor"),
        ({"zip": "03031", "planTypes": ["X"]}, 400, "validation_error", "planTypes.0"),
    ],
)
async def test_bad_input_is_a_problem_naming_the_field(
    api: ApiClient,
    auth_header: dict[str, str],
    body: dict[str, Any],
    status: int,
    code: str,
    field: str,
) -> None:
    response = await api.post(PLAN_SEARCH, json=body, headers=auth_header)
    assert response.status == status, await response.text()
    problem = await response.json()
    assert problem["code"] == code
    assert field in {error["field"] for error in problem.get("errors", [])} | {problem.get("field")}
