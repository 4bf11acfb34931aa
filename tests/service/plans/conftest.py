from __future__ import annotations

from typing import Any

import pytest

from service.web.app import create_app
from service.web.auth import mint_token
from service.web.settings import ALL_SCOPES, Settings
from tests.conftest import SAMPLE_TODAY, ApiClient, ClientFactory

PLAN_SEARCH = "/v2/plans/search"


@pytest.fixture
async def plans_api(aiohttp_client: ClientFactory, sample_settings: Settings) -> ApiClient:
    """The sample service without its rate limiter: these tests send hundreds of requests."""
    settings = sample_settings.model_copy(update={"rate_limit_per_s": 0})
    return await aiohttp_client(create_app(settings, today=lambda: SAMPLE_TODAY))


@pytest.fixture
def auth(sample_settings: Settings) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint_token(sample_settings, scopes=ALL_SCOPES)}"}


async def search(api: ApiClient, auth: dict[str, str], **body: Any) -> Any:
    response = await api.post(PLAN_SEARCH, json=body, headers=auth)
    assert response.status == 200, await response.text()
    return await response.json()


async def every_page(api: ApiClient, auth: dict[str, str], **body: Any) -> list[Any]:
    """Every plan of a search, page by page through the cursors."""
    page = await search(api, auth, **body)
    plans = list(page["results"])
    while page["nextCursor"]:
        page = await search(api, auth, cursor=page["nextCursor"], pageSize=body["pageSize"])
        plans += page["results"]
    return plans
