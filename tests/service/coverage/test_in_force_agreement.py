"""The in-network search filter and the coverage answer agree on any day of the question: the
clock moves across the effective and termination dates of the sample's dated rows."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient

from service.web.app import create_app
from service.web.settings import Settings
from tests.conftest import SAMPLE_DIR, ClientFactory
from tests.service.search.calls import all_results
from tests.source_rows import canonical_bid, coverage_rows

ApiClient = TestClient[web.Request, web.Application]


def _dated_pairs(limit: int) -> list[tuple[str, str, list[date]]]:
    """(bid id, NPI, the days around the dates of its rows) for pairs with a dated row."""
    days: dict[tuple[str, str], set[date]] = {}
    for row in coverage_rows(SAMPLE_DIR):
        dates = [row["effective_date"], row["termination_date"]]
        for written in filter(None, dates):
            day = date.fromisoformat(written)
            pair = (canonical_bid(row["bid_id"]), row["npi"])
            days.setdefault(pair, set()).update({day - timedelta(days=1), day})
    return [(bid, npi, sorted(found)) for (bid, npi), found in sorted(days.items())[:limit]]


async def _point(api: ApiClient, auth: dict[str, str], npi: str) -> dict[str, float] | None:
    response = await api.get(f"/v2/providers/{npi}/locations", headers=auth)
    if response.status != 200:
        return None
    for location in await response.json():
        address = location["address"]
        if address["lat"] is not None:
            return {"lat": address["lat"], "lng": address["lng"]}
    return None


async def test_filter_and_coverage_agree_across_dates(
    aiohttp_client: ClientFactory, sample_settings: Settings, auth_header: dict[str, str]
) -> None:
    clock = [date(2026, 1, 1)]
    api: ApiClient = await aiohttp_client(create_app(sample_settings, today=lambda: clock[0]))
    checked = flipped = 0
    for bid, npi, days in _dated_pairs(limit=12):
        point = await _point(api, auth_header, npi)
        if point is None:
            continue
        seen: set[bool] = set()
        for day in days:
            clock[0] = day
            coverage: list[dict[str, Any]] = await (
                await api.post(
                    "/v2/providers/coverage",
                    headers=auth_header,
                    json={"contractYear": 2026, "bidIds": [bid], "npis": [{"npi": npi}]},
                )
            ).json()
            in_network = coverage[0]["providers"][0]["networkStatus"] == "in_network"
            found = await all_results(
                api, auth_header, location=point, radius=1, bidId=bid, contractYear=2026
            )
            assert (npi in {r["npis"][0] for r in found}) == in_network, (bid, npi, day)
            seen.add(in_network)
            checked += 1
        flipped += len(seen) == 2
    assert checked >= 10 and flipped >= 2  # the dates did move answers, both ways agreeing
