"""Real answers of every operation, success and error, validated against the OpenAPI document the
same app serves (JSON Schema 2020-12, refs resolved inside the document), with the headers the
document marks required. A shape, status or header that drifts from the document fails here.
/fhir is not in this document (tests/service/test_openapi.py): its contract is its
CapabilityStatement and the FHIR validator's profiles (tests/service/fhir)."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp import ClientResponse
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from core.documents import Json
from core.npi import with_check_digit
from service.web.app import create_app
from service.web.auth import mint_token
from service.web.keys import LIMITER
from service.web.ratelimit import RateLimiter
from service.web.settings import Settings
from tests.conftest import SAMPLE_DIR, SAMPLE_TODAY, ApiClient, ClientFactory
from tests.source_rows import in_network_pair

NPI = "1003000100"
UNKNOWN_NPI = with_check_digit("299999999")
SEARCH, COVERAGE = "/v2/providers/search", "/v2/providers/coverage"
PROVIDER, LOCATIONS = "/v2/providers/{npi}", "/v2/providers/{npi}/locations"
PLAN_SEARCH, PLAN = "/v2/plans/search", "/v2/plans/{bidId}"
DOCUMENT_URI = "urn:provider-directory:openapi"


class Contract:
    """The served document, and a check of one answer against it."""

    def __init__(self, document: Json) -> None:
        self.document = document
        resource = Resource.from_contents(document, default_specification=DRAFT202012)
        self.registry: Registry[Any] = Registry().with_resource(DOCUMENT_URI, resource)
        self.checked: set[tuple[str, str, int]] = set()

    async def check(self, template: str, method: str, response: ClientResponse) -> Any:
        operation = self.document["paths"][template][method]
        status = str(response.status)
        assert status in operation["responses"], f"{method} {template}: {status} undocumented"
        documented = operation["responses"][status]
        for name, header in documented.get("headers", {}).items():
            if header["required"]:
                assert name in response.headers, f"{method} {template} {status}: no {name}"
        self.checked.add((template, method, response.status))
        content = documented.get("content")
        if content is None:
            assert await response.read() == b""
            return None
        assert response.content_type in content, (template, status, response.content_type)
        body: Any = await response.json(content_type=None)
        pointer = "/".join(
            part.replace("~", "~0").replace("/", "~1")
            for part in ("paths", template, method, "responses", status, "content")
        )
        media = response.content_type.replace("~", "~0").replace("/", "~1")
        schema = {"$ref": f"{DOCUMENT_URI}#/{pointer}/{media}/schema"}
        validator = Draft202012Validator(schema, registry=self.registry)
        errors = sorted(validator.iter_errors(body), key=lambda e: list(e.path))
        assert not errors, f"{method} {template} {status}: " + "; ".join(
            f"{list(e.path)}: {e.message}" for e in errors[:5]
        )
        return body


async def contract_of(client: ApiClient) -> Contract:
    response = await client.get("/v2/openapi.json")
    assert response.status == 200
    return Contract(await response.json())


@pytest.fixture
async def contract(api: ApiClient) -> Contract:
    return await contract_of(api)


@pytest.fixture(scope="module")
def coverage_pair() -> tuple[str, str]:
    return in_network_pair(SAMPLE_DIR)


async def test_search_answers(
    api: ApiClient, auth_header: dict[str, str], contract: Contract
) -> None:
    near = {
        "query": "cardiology",
        "location": "10013",
        "radius": 10,
        "pageSize": 5,
        "facets": True,
    }
    first = await contract.check(
        SEARCH, "post", await api.post(SEARCH, json=near, headers=auth_header)
    )
    assert first is not None and first["results"] and "facets" in first
    assert first["nextCursor"], "the sample has more than five cardiologists near 10013"
    cursor_page = await api.post(
        SEARCH, json={"cursor": first["nextCursor"], "pageSize": 5}, headers=auth_header
    )
    assert (await contract.check(SEARCH, "post", cursor_page)) is not None
    plain = {"query": "smith", "facets": False}
    body = await contract.check(
        SEARCH, "post", await api.post(SEARCH, json=plain, headers=auth_header)
    )
    assert body is not None and "facets" not in body
    for bad in ({}, {"query": "x", "pageSize": 0}, {"location": "00000"}):
        await contract.check(SEARCH, "post", await api.post(SEARCH, json=bad, headers=auth_header))
    await contract.check(
        SEARCH,
        "post",
        await api.post(
            SEARCH, data=b"{", headers=auth_header | {"Content-Type": "application/json"}
        ),
    )
    await contract.check(SEARCH, "post", await api.post(SEARCH, data=b"x", headers=auth_header))
    await contract.check(SEARCH, "post", await api.post(SEARCH, json=near))
    assert {s for t, m, s in contract.checked} == {200, 400, 401, 404, 415}


async def test_provider_and_location_answers(
    api: ApiClient, auth_header: dict[str, str], contract: Contract
) -> None:
    for template in (PROVIDER, LOCATIONS):
        path = template.format(npi=NPI)
        ok = await api.get(path, headers=auth_header)
        await contract.check(template, "get", ok)
        tag = {"If-None-Match": ok.headers["ETag"]}
        await contract.check(template, "get", await api.get(path, headers=auth_header | tag))
        await contract.check(
            template, "get", await api.get(template.format(npi="123"), headers=auth_header)
        )
        await contract.check(
            template, "get", await api.get(template.format(npi=UNKNOWN_NPI), headers=auth_header)
        )
    assert {s for _, _, s in contract.checked} == {200, 304, 400, 404}


async def test_coverage_answers(
    api: ApiClient, auth_header: dict[str, str], contract: Contract, coverage_pair: tuple[str, str]
) -> None:
    bid, npi = coverage_pair
    body = {
        "contractYear": 2026,
        "bidIds": [bid, "Z9999_999"],
        "npis": [{"npi": npi}, {"npi": UNKNOWN_NPI}, {"npi": NPI, "locationIds": ["nowhere"]}],
        "asOf": SAMPLE_TODAY.isoformat(),
    }
    answer = await contract.check(
        COVERAGE, "post", await api.post(COVERAGE, json=body, headers=auth_header)
    )
    assert answer is not None
    reasons = {p["reason"] for plan in answer for p in plan["providers"]}
    assert {"plan_not_found", "provider_not_found", "location_not_found"} <= reasons
    compact = await contract.check(
        COVERAGE,
        "post",
        await api.post(COVERAGE, json={**body, "view": "compact"}, headers=auth_header),
    )
    assert compact is not None and set(compact["providers"]) == {npi, NPI}
    bad = {"contractYear": 2026, "bidIds": ["nope"], "npis": [{"npi": NPI}]}
    await contract.check(COVERAGE, "post", await api.post(COVERAGE, json=bad, headers=auth_header))
    assert {s for _, _, s in contract.checked} == {200, 400}


async def test_plan_answers(
    api: ApiClient, auth_header: dict[str, str], contract: Contract, coverage_pair: tuple[str, str]
) -> None:
    bid, npi = coverage_pair
    asked = {
        "zip": "03031",
        "npis": [{"npi": npi}, {"npi": UNKNOWN_NPI}, {"npi": NPI, "locationIds": ["nowhere"]}],
        "planTypes": ["H", "R", "E", "S"],
        "snp": "include",
        "pageSize": 3,
    }
    first = await contract.check(
        PLAN_SEARCH, "post", await api.post(PLAN_SEARCH, json=asked, headers=auth_header)
    )
    assert first is not None and first["results"] and first["nextCursor"]
    reasons = {p["reason"] for plan in first["results"] for p in plan["providers"]}
    assert {"provider_not_found", "location_not_found"} <= reasons
    after = {"cursor": first["nextCursor"], "pageSize": 3}
    await contract.check(
        PLAN_SEARCH, "post", await api.post(PLAN_SEARCH, json=after, headers=auth_header)
    )
    nothing = {"zip": "10013"}  # no plan is sold there: noResults
    empty = await contract.check(
        PLAN_SEARCH, "post", await api.post(PLAN_SEARCH, json=nothing, headers=auth_header)
    )
    assert empty is not None and empty["noResults"]["code"] == "no_plan_offered"
    for bad in ({"zip": "3031"}, {"zip": "00000"}, {"cursor": "tampered", "pageSize": 3}):
        await contract.check(
            PLAN_SEARCH, "post", await api.post(PLAN_SEARCH, json=bad, headers=auth_header)
        )
    await contract.check(PLAN_SEARCH, "post", await api.post(PLAN_SEARCH, json=asked))
    for path in (bid, bid.lower().replace("_", "-"), "H9999_999", "H99", f"{bid}?contractYear=x"):
        await contract.check(PLAN, "get", await api.get(f"/v2/plans/{path}", headers=auth_header))
    assert {s for _, _, s in contract.checked} == {200, 400, 401, 404}
    assert {(PLAN, "get", 200), (PLAN, "get", 404), (PLAN_SEARCH, "post", 404)} <= contract.checked


async def test_auth_limits_and_outage_answers(
    aiohttp_client: ClientFactory, sample_settings: Settings
) -> None:
    limited = sample_settings.model_copy(update={"rate_limit_per_s": 0.001, "rate_limit_burst": 1})
    app = create_app(limited, today=lambda: SAMPLE_TODAY)
    app[LIMITER] = RateLimiter(0.001, 1, clock=lambda: 0.0)  # no token comes back meanwhile
    client = await aiohttp_client(app)
    contract = await contract_of(client)
    providers_only = {"Authorization": f"Bearer {mint_token(limited, scopes=['providers:read'])}"}
    body = {"contractYear": 2026, "bidIds": ["H1234_001"], "npis": [{"npi": NPI}]}
    await contract.check(
        COVERAGE, "post", await client.post(COVERAGE, json=body, headers=providers_only)
    )
    big = {"query": "x" * 200, "specialty": "y" * 100_000}  # takes the one token of the burst
    await contract.check(
        SEARCH, "post", await client.post(SEARCH, json=big, headers=providers_only)
    )
    path = PROVIDER.format(npi=NPI)
    await contract.check(PROVIDER, "get", await client.get(path, headers=providers_only))
    plan = "/v2/plans/H0104_016_000"
    await contract.check(PLAN, "get", await client.get(plan, headers=providers_only))
    await contract.check(
        PLAN_SEARCH,
        "post",
        await client.post(PLAN_SEARCH, json={"zip": "03031"}, headers=providers_only),
    )
    assert {s for _, _, s in contract.checked} == {403, 413, 429}

    missing = sample_settings.model_copy(update={"index_prefix": "nothing-loaded-here"})
    down = await aiohttp_client(create_app(missing, today=lambda: SAMPLE_TODAY))
    down_contract = await contract_of(down)
    auth = {"Authorization": f"Bearer {mint_token(missing)}"}
    await down_contract.check(PROVIDER, "get", await down.get(path, headers=auth))
    await down_contract.check(COVERAGE, "post", await down.post(COVERAGE, json=body, headers=auth))
    await down_contract.check(PLAN, "get", await down.get(plan, headers=auth))
    plans = await down.post(PLAN_SEARCH, json={"zip": "03031"}, headers=auth)
    await down_contract.check(PLAN_SEARCH, "post", plans)
    await down_contract.check("/readyz", "get", await down.get("/readyz"))
    await down_contract.check("/healthz", "get", await down.get("/healthz"))
    assert {s for _, _, s in down_contract.checked} == {503, 200}
    assert {(PLAN, "get", 503), (PLAN_SEARCH, "post", 503)} <= down_contract.checked


async def test_probe_answers(api: ApiClient, contract: Contract) -> None:
    await contract.check("/readyz", "get", await api.get("/readyz"))
    await contract.check("/healthz", "get", await api.get("/healthz"))
    assert {s for _, _, s in contract.checked} == {200}
