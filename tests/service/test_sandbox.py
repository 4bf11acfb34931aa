"""Sandbox mode: the API also at the root (no /v2), marked by a header, off by default."""

from __future__ import annotations

import pytest

from service.web.app import create_app
from service.web.settings import Settings
from tests.conftest import ApiClient, ClientFactory

NPI = "1003000100"


@pytest.fixture
async def sandbox(aiohttp_client: ClientFactory, sample_settings: Settings) -> ApiClient:
    return await aiohttp_client(create_app(sample_settings.model_copy(update={"sandbox": True})))


@pytest.mark.parametrize("path", [f"/providers/{NPI}", f"/providers/{NPI}/locations"])
async def test_sandbox_serves_the_same_answers_marked(
    sandbox: ApiClient, auth_header: dict[str, str], path: str
) -> None:
    real = await sandbox.get(f"/v2{path}", headers=auth_header)
    copy = await sandbox.get(path, headers=auth_header)
    assert (real.status, copy.status) == (200, 200)
    assert await copy.json() == await real.json()
    assert copy.headers["X-Sandbox"] == "true"
    assert "X-Sandbox" not in real.headers


async def test_sandbox_post_routes_and_errors_are_marked(
    sandbox: ApiClient, auth_header: dict[str, str]
) -> None:
    search = await sandbox.post("/providers/search", json={"query": "cardio"}, headers=auth_header)
    assert search.status == 200
    assert search.headers["X-Sandbox"] == "true"
    coverage = await sandbox.post(
        "/providers/coverage",
        json={"contractYear": 2026, "bidIds": ["H1234_001_000"], "npis": [{"npi": NPI}]},
        headers=auth_header,
    )
    assert coverage.status == 200
    assert coverage.headers["X-Sandbox"] == "true"
    for response, status in (
        (await sandbox.get(f"/providers/{NPI}"), 401),  # still needs a token
        (await sandbox.get("/providers/123", headers=auth_header), 400),
    ):
        assert response.status == status
        assert response.headers["X-Sandbox"] == "true"
        assert response.content_type == "application/problem+json"


async def test_sandbox_is_off_by_default(api: ApiClient, auth_header: dict[str, str]) -> None:
    response = await api.get(f"/providers/{NPI}", headers=auth_header)
    assert response.status == 404
    assert "X-Sandbox" not in response.headers
