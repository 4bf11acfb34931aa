"""Everything the CapabilityStatement declares is answered: each search parameter of each type
with a value of its type, each _include and _revinclude (a 200 searchset, never an error)."""

from __future__ import annotations

from typing import Any

from tests.conftest import ApiClient
from tests.service.fhir import fhir_rows as F

VALUES = {
    "token": "x",
    "string": "a",
    "date": "ge2000-01-01",
    "reference": "Organization/1234567893",
    "quantity": "1",
}
SPECIAL = {"near": "41.76|-72.68|5|mi", "_text": "family doctor"}


async def _statement(api: ApiClient) -> list[dict[str, Any]]:
    statement = await F.fetch(api, "/fhir/metadata")
    resources: list[dict[str, Any]] = statement["rest"][0]["resource"]
    return resources


async def test_every_declared_parameter_answers(api: ApiClient) -> None:
    strict = {"Prefer": "handling=strict"}
    for resource in await _statement(api):
        kind = resource["type"]
        for param in resource["searchParam"]:
            name = param["name"]
            value = SPECIAL.get(name, VALUES.get(param["type"], "x"))
            body = await F.fetch(
                api, f"/fhir/{kind}", [(name, value), ("_count", "3")], headers=strict
            )
            assert body["resourceType"] == "Bundle", (kind, name)
            for chain in param.get("documentation", "").removeprefix("chains: ").split(", "):
                if chain.startswith(name + "."):
                    pairs = [(chain, "a"), ("_count", "3")]
                    await F.fetch(api, f"/fhir/{kind}", pairs, headers=strict)


async def test_every_declared_include_answers(api: ApiClient) -> None:
    strict = {"Prefer": "handling=strict"}
    for resource in await _statement(api):
        kind = resource["type"]
        for name in resource.get("searchInclude", []):
            await F.fetch(
                api, f"/fhir/{kind}", [("_include", name), ("_count", "5")], headers=strict
            )
        for name in resource.get("searchRevInclude", []):
            pairs = [("_revinclude", name), ("_count", "5")]
            await F.fetch(api, f"/fhir/{kind}", pairs, headers=strict)
