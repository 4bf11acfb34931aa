"""Search calls the search tests share."""

from __future__ import annotations

from typing import Any

from core.documents import Json
from tests.conftest import ApiClient

LOWER_MANHATTAN = {"lat": 40.7128, "lng": -74.0060}


async def search(api: ApiClient, auth: dict[str, str], **body: Any) -> Json:
    response = await api.post("/v2/providers/search", json=body, headers=auth)
    assert response.status == 200, await response.text()
    result: Json = await response.json()
    return result


async def all_results(api: ApiClient, auth: dict[str, str], **body: Any) -> list[Json]:
    results: list[Json] = []
    page = await search(api, auth, pageSize=100, **body)
    results.extend(page["results"])
    while page["nextCursor"]:
        page = await search(api, auth, cursor=page["nextCursor"], pageSize=100)
        results.extend(page["results"])
    return results
