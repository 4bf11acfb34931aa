"""POST /v2/providers/search: what a request may say (validation, media type) and what the
filters keep, against the loaded sample."""

from __future__ import annotations

from typing import Any

import pytest

from core.documents import Json
from tests.conftest import ApiClient
from tests.service.search.calls import LOWER_MANHATTAN, search


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "query"),
        ({"query": 5}, "query"),
        ({"query": "x" * 257}, "query"),
        ({"query": "a", "pageSize": 0}, "pageSize"),
        ({"query": "a", "pageSize": 101}, "pageSize"),
        ({"query": "a", "offset": -1}, "offset"),
        ({"query": "a", "offset": 10_000}, "offset"),
        ({"query": "  "}, "query"),
        ({"query": None, "location": "10013"}, "query"),
        ({"query": "a", "sort": "distance"}, "sort"),
        ({"query": "a", "bidId": "H1234_001"}, "bidId"),
        ({"query": "a", "payerPlanId": "HPID280000"}, "payerPlanId"),
        ({"query": "a", "contractYear": 2026}, "contractYear"),
        (
            {"query": "a", "bidId": "H1234_001", "payerPlanId": "X1", "contractYear": 2026},
            "payerPlanId",
        ),
        ({"query": "a", "payerPlanId": "no spaces", "contractYear": 2026}, "payerPlanId"),
        ({"cursor": "x", "query": "a"}, "query"),
        ({"query": "a", "unknown": 1}, "unknown"),
        ({"location": "10013", "radius": 0}, "radius"),
        ({"location": "10013", "radius": 101}, "radius"),
        ({"query": "a", "radius": 5}, "radius"),
        ({"location": {"lat": 91, "lng": 0}}, "location.lat"),
        ({"query": "a", "sort": "name"}, "sort"),
        ({"query": "a", "gender": "Q"}, "gender"),
        ({"query": "a", "pageSize": "10"}, "pageSize"),
        ({"cursor": "not a cursor"}, "cursor"),
        ({"location": ""}, "location"),
        ({"location": " ,- "}, "location"),
    ],
)
async def test_invalid_requests_are_400_naming_the_field(
    api: ApiClient, auth_header: dict[str, str], body: Json, field: str
) -> None:
    response = await api.post("/v2/providers/search", json=body, headers=auth_header)
    assert response.status == 400
    assert response.content_type == "application/problem+json"
    problem = await response.json()
    assert field in [e["field"] for e in problem["errors"]], problem


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"location": "99999"}, "place_not_found"),
        ({"location": {"zip": "00000"}}, "place_not_found"),
        ({"location": {"city": "Atlantis", "state": "TX"}}, "place_not_found"),
        ({"location": "Nowhereville"}, "place_not_found"),
        ({"cursor": "bm90LWEtY3Vyc29y"}, "cursor_not_found"),
    ],
)
async def test_well_formed_names_of_nothing_are_404(
    api: ApiClient, auth_header: dict[str, str], body: Json, code: str
) -> None:
    """Valid by the published schema, so not a 400: there is just nothing by that name."""
    response = await api.post("/v2/providers/search", json=body, headers=auth_header)
    assert response.status == 404
    problem = await response.json()
    assert problem["code"] == code and problem["errors"][0]["field"] in body


async def test_body_must_be_json(api: ApiClient, auth_header: dict[str, str]) -> None:
    wrong_type = await api.post(
        "/v2/providers/search",
        data="query=x",
        headers={**auth_header, "Content-Type": "text/plain"},
    )
    assert wrong_type.status == 415
    broken = await api.post(
        "/v2/providers/search",
        data="{not json",
        headers={**auth_header, "Content-Type": "application/json"},
    )
    assert broken.status == 400
    assert (await broken.json())["code"] == "malformed_json"


@pytest.mark.parametrize(
    ("filters", "check"),
    [
        ({"gender": "F"}, lambda r: r["gender"] == "F"),
        ({"entityType": "organization"}, lambda r: r["entityType"] == "organization"),
        ({"pcpEligible": True}, lambda r: r["pcpEligible"] is True),
        (
            {"taxonomyCode": "207Q00000X"},
            lambda r: "207Q00000X" in [s["code"] for s in r["specialties"]],
        ),
        (
            {"specialty": "family medicine"},
            lambda r: any("Family Medicine" in (s["displayName"] or "") for s in r["specialties"]),
        ),
    ],
)
async def test_filters_keep_only_matching_providers(
    api: ApiClient, auth_header: dict[str, str], filters: Json, check: Any
) -> None:
    page = await search(
        api, auth_header, location=LOWER_MANHATTAN, radius=10, pageSize=100, **filters
    )
    unfiltered = await search(api, auth_header, location=LOWER_MANHATTAN, radius=10, pageSize=1)
    assert 0 < page["totalCount"] < unfiltered["totalCount"]
    assert all(check(r) for r in page["results"])
