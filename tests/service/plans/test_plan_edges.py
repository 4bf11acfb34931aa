"""The edges of the plan endpoints: tampered cursors, page sizes at and beyond their bounds, and
bid ids in lower case or without a segment. Bad input is a 4xx problem naming the field, never
a 500."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.conftest import ApiClient
from tests.service.plans import plan_files
from tests.service.plans.conftest import PLAN_SEARCH, search

AREA = {"zip": "29201", "planTypes": ["H", "R", "E", "S"], "snp": "include"}


def offered() -> int:
    return len(plan_files.plans_by_zip()[AREA["zip"]])  # type: ignore[index]


async def _problem(
    api: ApiClient, auth: dict[str, str], body: dict[str, Any], status: int
) -> dict[str, Any]:
    response = await api.post(PLAN_SEARCH, json=body, headers=auth)
    assert response.status == status, await response.text()
    assert response.content_type == "application/problem+json"
    problem: dict[str, Any] = await response.json()
    return problem


def _fields(problem: dict[str, Any]) -> set[str]:
    return {error["field"] for error in problem.get("errors", [])}


def _decoded(cursor: str) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    return value


def _encoded(value: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


async def _first_cursor(api: ApiClient, auth: dict[str, str]) -> str:
    page = await search(api, auth, pageSize=5, **AREA)
    assert page["nextCursor"]
    return str(page["nextCursor"])


def _tamperings(cursor: str) -> dict[str, str]:
    state = _decoded(cursor)

    def edited(**changes: Any) -> str:
        return _encoded({**state, **changes})

    return {
        "a character changed": cursor[:10] + ("A" if cursor[10] != "A" else "B") + cursor[11:],
        "cut short": cursor[: len(cursor) // 2],
        "not base64": cursor + "!*",
        "not JSON": base64.urlsafe_b64encode(b"{not json").decode().rstrip("="),
        "a JSON list": _encoded([state]),
        "a negative offset": edited(offset=-5),
        "a fractional offset": edited(offset=2.5),
        "another version": edited(v=state["v"] + 1),
        "an unknown key": edited(admin=True),
        "no request": _encoded({k: v for k, v in state.items() if k != "request"}),
        "a null request": edited(request=None),
        "a request the API refuses": edited(request={**state["request"], "zip": "3031"}),
        "a cursor in the cursor": edited(request={**state["request"], "cursor": cursor}),
        "two areas": edited(request={**state["request"], "countyFips": "45079"}),
    }


async def test_a_tampered_cursor_is_a_404_problem(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    cursor = await _first_cursor(api, auth_header)
    for how, tampered in _tamperings(cursor).items():
        problem = await _problem(api, auth_header, {"cursor": tampered, "pageSize": 5}, 404)
        assert problem["code"] == "cursor_not_found", how
        assert _fields(problem) | {problem.get("field")} >= {"cursor"}, how
    # The untouched cursor still answers the next page.
    assert len((await search(api, auth_header, cursor=cursor, pageSize=5))["results"]) == 5


async def test_a_cursor_moved_past_the_last_plan_answers_an_empty_last_page(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    """A cursor carries the request and an offset, no server state: one moved past the end reads
    as the end of the walk (as a cursor kept over a reload that removed plans would)."""
    state = _decoded(await _first_cursor(api, auth_header))
    for offset in (offered(), offered() + 1, 2**62):
        page = await search(api, auth_header, cursor=_encoded({**state, "offset": offset}))
        assert page["results"] == [] and page["nextCursor"] is None, offset
        assert page["totalCount"] == offered() and page["noResults"] is None


@pytest.mark.parametrize("page_size", [0, -1, 101, 1000, 2.5, "20", True, None, [5]], ids=repr)
async def test_a_page_size_out_of_its_bounds_is_a_400_naming_it(
    api: ApiClient, auth_header: dict[str, str], page_size: object
) -> None:
    problem = await _problem(api, auth_header, {**AREA, "pageSize": page_size}, 400)
    assert problem["code"] == "validation_error" and _fields(problem) == {"pageSize"}
    cursor = await _first_cursor(api, auth_header)
    problem = await _problem(api, auth_header, {"cursor": cursor, "pageSize": page_size}, 400)
    assert problem["code"] == "validation_error" and _fields(problem) == {"pageSize"}


@pytest.mark.parametrize("page_size", [1, 2.0, 99, 100])
async def test_page_sizes_at_the_bounds_are_answered(
    api: ApiClient, auth_header: dict[str, str], page_size: float
) -> None:
    total = offered()
    assert 1 < total < 99  # so that 1 leaves a cursor and 99 and 100 hold every plan
    page = await search(api, auth_header, pageSize=page_size, **AREA)
    expected = min(int(page_size), total)
    assert len(page["results"]) == expected and page["pageSize"] == int(page_size)
    assert (page["nextCursor"] is not None) == (expected < total)
    if page["nextCursor"]:
        after = await search(api, auth_header, cursor=page["nextCursor"], pageSize=page_size)
        assert len(after["results"]) == expected
        assert after["results"][0]["bidId"] not in {p["bidId"] for p in page["results"]}


def _known_plan() -> str:
    """A plan of the file with segment 000, so that leaving the segment out names it too."""
    return min(b for b in plan_files.plans() if b.endswith("_000"))


@pytest.mark.parametrize(
    "spelling",
    [
        lambda b: b.lower(),
        lambda b: b.lower().replace("_", "-"),
        lambda b: b.removesuffix("_000"),
        lambda b: b.removesuffix("_000").replace("_", "-").lower(),
        lambda b: b[:5] + "-" + b[6:],  # the separators may differ
    ],
    ids=["lower case", "lower case, dashes", "no segment", "no segment, lower, dash", "mixed"],
)
async def test_a_bid_id_in_another_spelling_names_the_same_plan(
    api: ApiClient, auth_header: dict[str, str], spelling: Any
) -> None:
    bid = _known_plan()
    response = await api.get(f"/v2/plans/{spelling(bid)}", headers=auth_header)
    assert response.status == 200, await response.text()
    plan = await response.json()
    assert plan["bidId"] == bid  # answered in the canonical form
    assert plan["planName"] == plan_files.plans()[bid]["plan_name"].split("\n")[0].strip()


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("h1234-001-000", 404, "plan_not_found"),  # well formed, lower case, no such plan
        ("H1234-001", 404, "plan_not_found"),  # well formed without a segment, no such plan
        ("H1234_001_00", 400, "validation_error"),
        ("H1234_001_000_000", 400, "validation_error"),
        ("HH234_001_000", 400, "validation_error"),
        ("H1234 001 000", 400, "validation_error"),
        ("H1234.001.000", 400, "validation_error"),
        ("%E2%84%8C1234-001", 400, "validation_error"),  # a letter-like symbol, not a letter
    ],
)
async def test_unknown_and_malformed_bid_ids_are_problems(
    api: ApiClient, auth_header: dict[str, str], path: str, status: int, code: str
) -> None:
    response = await api.get(f"/v2/plans/{path}", headers=auth_header)
    assert response.status == status, await response.text()
    assert response.content_type == "application/problem+json"
    problem = await response.json()
    assert problem["code"] == code
    if status == 404:
        canonical = path.upper().replace("-", "_")
        canonical += "" if canonical.count("_") == 2 else "_000"
        assert canonical in problem["detail"]  # named as the plans index keys it
    else:
        assert _fields(problem) == {"bidId"}
