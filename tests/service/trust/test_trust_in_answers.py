"""The coverage check and plans for my doctors say how far to believe each answer: each asked
provider's entry carries its flags (the codes of its stored ``dataQuality`` notes) and each
location its stored confidence, read here from the lookup index directly."""

from __future__ import annotations

from typing import Any

import orjson
from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_scan

from core.index_contract import IndexNames
from tests.conftest import ApiClient
from tests.service.plans import plan_files


async def _stored(es: AsyncElasticsearch, names: IndexNames) -> dict[str, dict[str, Any]]:
    found = {}
    query: dict[str, Any] = {"query": {"match_all": {}}}
    async for hit in async_scan(es, index=names.alias("providers"), query=query, size=2000):
        source = hit["_source"]
        found[hit["_id"]] = {
            "flags": [n["code"] for n in orjson.loads(source["provider"]).get("dataQuality", [])],
            "confidence": {
                loc["id"]: loc["confidence"] for loc in orjson.loads(source["locations"])
            },
        }
    return found


def _asked(stored: dict[str, dict[str, Any]]) -> list[str]:
    flagged = sorted(npi for npi, facts in stored.items() if len(facts["flags"]) == 1)[:3]
    plain = sorted(npi for npi, facts in stored.items() if not facts["flags"])[:2]
    assert len(flagged) == 3 and len(plain) == 2
    return [*flagged, *plain]


def _check(entry: dict[str, Any], stored: dict[str, dict[str, Any]]) -> None:
    facts = stored[entry["npi"]]
    assert entry["flags"] == facts["flags"]
    assert entry["locations"]
    for location in entry["locations"]:
        assert location["confidence"] == facts["confidence"][location["id"]]


async def test_coverage_entries_carry_flags_and_confidence(
    api: ApiClient, auth_header: dict[str, str], es: AsyncElasticsearch, served_names: IndexNames
) -> None:
    stored = await _stored(es, served_names)
    asked = _asked(stored)
    bid = sorted(plan_files.plans_by_zip()[sorted(plan_files.plans_by_zip())[0]])[0]
    body = {"contractYear": 2026, "bidIds": [bid], "npis": [{"npi": npi} for npi in asked]}
    for view in ("full", "compact"):
        response = await api.post(
            "/v2/providers/coverage", json={**body, "view": view}, headers=auth_header
        )
        assert response.status == 200, await response.text()
        answer = await response.json()
        plans = answer if view == "full" else answer["plans"]
        entries = plans[0]["providers"]
        assert [entry["npi"] for entry in entries] == asked
        for entry in entries:
            _check(entry, stored)


async def test_plan_entries_carry_flags_and_confidence(
    api: ApiClient, auth_header: dict[str, str], es: AsyncElasticsearch, served_names: IndexNames
) -> None:
    stored = await _stored(es, served_names)
    asked = _asked(stored)
    zip_code = sorted(plan_files.plans_by_zip())[0]
    body = {"zip": zip_code, "npis": [{"npi": npi} for npi in asked]}
    response = await api.post("/v2/plans/search", json=body, headers=auth_header)
    assert response.status == 200, await response.text()
    plans = (await response.json())["results"]
    assert plans
    for plan in plans:
        for entry in plan["providers"]:
            _check(entry, stored)
