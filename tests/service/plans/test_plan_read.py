"""GET /v2/plans/{bidId}: a plan's facts and service area, against the Plan Finder files."""

from __future__ import annotations

import pytest

from service.web.auth import mint_token
from service.web.settings import Settings
from tests.conftest import ApiClient
from tests.service.plans import plan_files


def nh_plan() -> str:
    listed = sorted(
        {plan_files.bid(r["bid_id"]) for r in plan_files.zip_rows() if r["state_dir"] == "NH"}
    )
    return next(b for b in listed if b in plan_files.plans())


async def test_a_plan_and_its_service_area(api: ApiClient, auth_header: dict[str, str]) -> None:
    bid = nh_plan()
    rows = [r for r in plan_files.zip_rows() if plan_files.bid(r["bid_id"]) == bid]
    # The NH rows of the ZIP file name each county with its FIPS code.
    nh_fips = {r["county"]: r["fips"] for r in plan_files.zip_rows() if r["state_dir"] == "NH"}
    county_rows = [
        r
        for r in plan_files.county_rows()
        if plan_files.bid(r["bid_id"]) == bid and r["state_dir"] == "NH"
    ]
    response = await api.get(f"/v2/plans/{bid.replace('_', '-')}", headers=auth_header)
    assert response.status == 200
    plan = await response.json()
    row = plan_files.plans()[bid]
    assert plan["bidId"] == bid and plan["contractYear"] == 2026
    assert plan["planName"] == row["plan_name"].split("\n")[0].strip()
    assert plan["monthlyPremium"] == plan_files.dollars(row["total_monthly_premium"])
    area = plan["serviceArea"]
    expected = {r["fips"] for r in rows} | {nh_fips[r["county"]] for r in county_rows}
    assert {c["fips"] for c in area["counties"] if c["state"] == "NH"} == expected
    assert "NH" in area["states"]
    assert area["zipCount"] >= len({r["zip"] for r in rows})


async def test_a_county_plan_covers_the_county_zips_the_zip_file_does_not_list(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    wyoming = sorted(
        {plan_files.bid(r["bid_id"]) for r in plan_files.county_rows() if r["state_dir"] == "WY"}
    )
    bid = wyoming[0]
    counties = {r["county"] for r in plan_files.county_rows() if plan_files.bid(r["bid_id"]) == bid}
    plan = await (await api.get(f"/v2/plans/{bid}", headers=auth_header)).json()
    assert {c["name"].removesuffix(" County") for c in plan["serviceArea"]["counties"]} == counties
    assert plan["serviceArea"]["states"] == ["WY"] and plan["serviceArea"]["zipCount"] > 0
    # A ZIP of one of those counties finds the plan, though the ZIP file has no Wyoming rows.
    laramie = "82001"  # Cheyenne, Laramie County
    assert "Laramie" in counties
    answer = await api.post(
        "/v2/plans/search",
        json={
            "zip": laramie,
            "pageSize": 100,
            "planTypes": ["H", "R", "E", "S"],
            "snp": "include",
        },
        headers=auth_header,
    )
    assert bid in {p["bidId"] for p in (await answer.json())["results"]}


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/v2/plans/H9999_999_000", 404, "plan_not_found"),
        ("/v2/plans/H0104_016_000?contractYear=2025", 404, "plan_not_found"),
        ("/v2/plans/H0104-16", 400, "validation_error"),
        ("/v2/plans/H0104_016_000?contractYear=soon", 400, "validation_error"),
    ],
)
async def test_unknown_and_malformed(
    api: ApiClient, auth_header: dict[str, str], path: str, status: int, code: str
) -> None:
    response = await api.get(path, headers=auth_header)
    assert response.status == status
    assert (await response.json())["code"] == code


async def test_plans_need_the_coverage_scope(api: ApiClient, sample_settings: Settings) -> None:
    token = mint_token(sample_settings, scopes=["providers:read"])
    headers = {"Authorization": f"Bearer {token}"}
    assert (await api.get("/v2/plans/H0104_016_000", headers=headers)).status == 403
    response = await api.post("/v2/plans/search", json={"zip": "03031"}, headers=headers)
    assert response.status == 403
    assert (await api.get("/v2/plans/search", headers=headers)).status == 405
