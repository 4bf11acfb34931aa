from __future__ import annotations

from typing import Any

from tests.conftest import ApiClient

PLAN_SEARCH = "/v2/plans/search"


async def search(api: ApiClient, auth_header: dict[str, str], **body: Any) -> Any:
    response = await api.post(PLAN_SEARCH, json=body, headers=auth_header)
    assert response.status == 200, await response.text()
    return await response.json()


async def every_page(api: ApiClient, auth_header: dict[str, str], **body: Any) -> list[Any]:
    """Every plan of a search, page by page through the cursors."""
    page = await search(api, auth_header, **body)
    plans = list(page["results"])
    while page["nextCursor"]:
        page = await search(api, auth_header, cursor=page["nextCursor"], pageSize=body["pageSize"])
        plans += page["results"]
    return plans
