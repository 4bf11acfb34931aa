"""The OpenAPI document: valid 3.1, version 1.12.0, and describing every route as served."""

from __future__ import annotations

import re

import pytest
from aiohttp import web
from openapi_spec_validator import validate

from core.documents import Json
from service.web.app import create_app
from service.web.openapi import openapi_document
from service.web.settings import Settings
from tests.conftest import ApiClient, ClientFactory


def served_routes(settings: Settings) -> set[tuple[str, str]]:
    """Every route but the docs page's static assets (files, not operations) and the FHIR
    API's, which its own CapabilityStatement (/fhir/metadata) describes."""
    app = create_app(settings)
    routes = set()
    for route in app.router.routes():
        if route.method == "HEAD" or isinstance(route.resource, web.StaticResource | None):
            continue
        if route.resource.canonical.startswith("/fhir"):
            continue
        path = re.sub(r"\{(\w+):[^}]*\}+", r"{\1}", route.resource.canonical)
        routes.add((route.method.lower(), path))
    return routes


@pytest.mark.parametrize(
    "changes",
    [{}, {"sandbox": True}, {"metrics_enabled": False, "rate_limit_per_s": 0}],
)
def test_document_is_valid_and_lists_exactly_the_served_routes(changes: Json) -> None:
    settings = Settings(**changes)
    document = openapi_document(settings)
    validate(document)  # raises on an invalid OpenAPI 3.1 document
    assert document["openapi"] == "3.1.0"
    assert document["info"]["version"] == "1.12.0"
    documented = {(m, p) for p, item in document["paths"].items() for m in item}
    assert documented == served_routes(settings)


def test_operations_state_auth_errors_and_headers() -> None:
    document = openapi_document(Settings(sandbox=True))
    assert document["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    for path, item in document["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            for status, response in responses.items():
                assert response["headers"]["X-Request-ID"]["required"] is True
                if int(status) >= 400 and "content" in response and status != "503":
                    assert "application/problem+json" in response["content"], (path, status)
            authenticated = ("/providers", "/plans", "/directories", "/changes", "/watches")
            if not path.removeprefix("/v2").startswith(authenticated):
                assert operation["security"] == []
                continue
            [requirement] = operation["security"]
            assert requirement["bearerAuth"] in (
                ["providers:read"], ["coverage:read"], ["watches:write"]
            )  # fmt: skip
            assert {"400", "401", "403", "429", "500", "503"} <= responses.keys()
            made = path.endswith("/watches") and method == "post"
            success = "201" if made else "204" if method == "delete" else "200"
            assert [s for s in ("200", "201", "204") if s in responses] == [success]
            sandbox = not path.startswith("/v2")
            if "/watches" in path:  # made and deleted: no validators
                assert "404" in responses or path.endswith("/watches")
                assert "ETag" not in next(iter(responses.values()))["headers"]
                assert ("X-Sandbox" in responses[min(responses)]["headers"]) is sandbox
                continue
            assert responses["429"]["headers"]["Retry-After"]["required"] is True
            assert responses["401"]["headers"]["WWW-Authenticate"]["required"] is True
            if method == "post":
                assert {"413", "415"} <= responses.keys()
                assert operation["requestBody"]["content"]["application/json"]["schema"]
            elif path.endswith("/directories"):  # the list: nothing by name to miss
                assert "404" not in responses and "ETag" not in responses["200"]["headers"]
            elif path.endswith("/changes"):  # a feed: a cursor too old is gone, not missing
                assert {"404", "410"} <= responses.keys()
            elif "/plans/" in path or "/directories/" in path:  # read whole, no validators
                assert "404" in responses and "ETag" not in responses["200"]["headers"]
            else:
                assert {"304", "404"} <= responses.keys()
                assert responses["200"]["headers"]["ETag"]["required"] is True
            sandbox = not path.startswith("/v2")
            assert ("X-Sandbox" in responses["200"]["headers"]) is sandbox


async def test_served_without_auth_with_a_docs_page(api: ApiClient) -> None:
    response = await api.get("/v2/openapi.json")
    assert response.status == 200
    assert response.content_type == "application/json"
    document = await response.json()
    assert document["info"]["version"] == "1.12.0"
    validate(document)
    page = await api.get("/v2/docs")
    assert page.status == 200
    assert page.content_type == "text/html"
    html = await page.text()
    assert '"/v2/openapi.json"' in html and "SwaggerUIBundle" in html
    assert "https://" not in html  # nothing from a CDN: the assets are served here
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css"):
        served = await api.get(f"/v2/docs/static/{asset}")
        assert served.status == 200 and len(await served.read()) > 10_000


async def test_sandbox_document_is_served_by_a_sandbox_app(
    aiohttp_client: ClientFactory, sample_settings: Settings
) -> None:
    client = await aiohttp_client(create_app(sample_settings.model_copy(update={"sandbox": True})))
    document = await (await client.get("/v2/openapi.json")).json()
    assert {"/providers/search", "/providers/{npi}", "/v2/providers/{npi}"} <= document[
        "paths"
    ].keys()
