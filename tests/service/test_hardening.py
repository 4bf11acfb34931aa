"""Errors as problem documents, request ids, body limits, conditional GETs and rate limits, on the
running service against the loaded sample."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from core.index_contract import IndexNames
from service.web.app import create_app
from service.web.auth import mint_token
from service.web.keys import LIMITER
from service.web.ratelimit import RateLimiter
from service.web.settings import Settings
from tests.conftest import (
    BOOM_MESSAGE,
    BOOM_PATH,
    SAMPLE_DIR,
    ApiClient,
    ClientFactory,
    settings_for,
)
from tests.source_rows import active_rows

NPI = "1003000100"
PROVIDER = f"/v2/providers/{NPI}"
# Another provider the sample holds, read from the sample file itself.
OTHER_NPI = next(
    row["NPI"] for row in active_rows(next(SAMPLE_DIR.glob("npidata_pfile*"))) if row["NPI"] != NPI
)
PROBLEM_FIELDS = {"type", "title", "status", "detail", "code", "instance", "requestId"}


async def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status == status, await response.text()
    assert response.content_type == "application/problem+json"
    body: dict[str, Any] = await response.json()
    assert body.keys() >= PROBLEM_FIELDS
    assert body["status"] == status
    assert body["code"] == code
    assert body["requestId"] == response.headers["X-Request-ID"]
    assert "Traceback" not in await response.text()
    return body


async def test_unknown_route_is_a_404_problem(api: ApiClient) -> None:
    await problem(await api.get("/v2/nowhere"), 404, "not_found")
    await problem(await api.post("/providers/search", json={}), 404, "not_found")


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("DELETE", PROVIDER, "GET"),
        ("PUT", "/v2/providers/search", "POST"),
        ("GET", "/v2/providers/search", "POST"),
        ("GET", "/v2/providers/coverage", "POST"),
        ("POST", "/healthz", "GET"),
    ],
)
async def test_wrong_method_is_a_405_problem_with_allow(
    api: ApiClient, auth_header: dict[str, str], method: str, path: str, allow: str
) -> None:
    response = await api.request(method, path, headers=auth_header)
    await problem(response, 405, "method_not_allowed")
    assert allow in response.headers["Allow"].split(",")
    assert set(response.headers["Allow"].split(",")) <= {allow, "HEAD"}


@pytest.mark.parametrize("path", ["/v2/providers/search", "/v2/providers/coverage"])
async def test_malformed_json_and_wrong_content_type(
    api: ApiClient, auth_header: dict[str, str], path: str
) -> None:
    json_headers = auth_header | {"Content-Type": "application/json"}
    for body in (b"{", b'{"query": "x",}', b"\xff\xfe", b"[1, 2"):
        await problem(await api.post(path, data=body, headers=json_headers), 400, "malformed_json")
    form = await api.post(path, data={"query": "cardio"}, headers=auth_header)
    await problem(form, 415, "unsupported_media_type")
    text = auth_header | {"Content-Type": "text/plain"}
    await problem(
        await api.post(path, data=b'{"query": "x"}', headers=text), 415, "unsupported_media_type"
    )


async def test_validation_errors_list_every_field(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    response = await api.post(
        "/v2/providers/search",
        json={"query": "x", "pageSize": 0, "gender": "Q", "nonsense": 1},
        headers=auth_header,
    )
    body = await problem(response, 400, "validation_error")
    fields = {error["field"] for error in body["errors"]}
    assert {"pageSize", "gender", "nonsense"} <= fields
    assert all(error["message"] for error in body["errors"])


async def test_body_over_the_limit_is_a_413_problem(
    aiohttp_client: ClientFactory, sample_settings: Settings, auth_header: dict[str, str]
) -> None:
    client = await aiohttp_client(
        create_app(sample_settings.model_copy(update={"max_body_bytes": 1024}))
    )
    big = {"query": "cardio", "specialty": "x" * 2000}
    for path in ("/v2/providers/search", "/v2/providers/coverage"):
        await problem(await client.post(path, json=big, headers=auth_header), 413, "body_too_large")
    small = await client.post("/v2/providers/search", json={"query": "cardio"}, headers=auth_header)
    assert small.status == 200


async def test_unexpected_errors_are_logged_500_problems(
    failing_api: ApiClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="service.web.problems")
    response = await failing_api.get(BOOM_PATH, headers={"X-Request-ID": "trace-500"})
    body = await problem(response, 500, "internal_error")
    assert body["requestId"] == "trace-500"
    assert BOOM_MESSAGE not in await response.text()
    [record] = [r for r in caplog.records if r.name == "service.web.problems"]
    assert "trace-500" in record.getMessage()
    assert record.exc_info is not None


async def test_request_id_is_accepted_or_generated_and_echoed(api: ApiClient) -> None:
    given = await api.get("/v2/nowhere", headers={"X-Request-ID": "abc-123"})
    assert given.headers["X-Request-ID"] == "abc-123"
    assert (await given.json())["requestId"] == "abc-123"
    for unsafe in ("", "has space", "x" * 200, "new\tline"):
        response = await api.get("/healthz", headers={"X-Request-ID": unsafe})
        generated = response.headers["X-Request-ID"]
        assert generated != unsafe
        assert len(generated) == 32
    first, second = await api.get("/healthz"), await api.get("/healthz")
    assert first.headers["X-Request-ID"] != second.headers["X-Request-ID"]


@pytest.mark.parametrize("path", [PROVIDER, f"{PROVIDER}/locations"])
async def test_conditional_get_with_etag(
    api: ApiClient, auth_header: dict[str, str], path: str
) -> None:
    first = await api.get(path, headers=auth_header)
    assert first.status == 200
    etag = first.headers["ETag"]
    assert etag.startswith('"') and etag.endswith('"')
    again = await api.get(path, headers=auth_header)
    assert again.headers["ETag"] == etag  # same bytes, same tag
    for condition in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        cached = await api.get(path, headers=auth_header | {"If-None-Match": condition})
        assert cached.status == 304, condition
        assert cached.headers["ETag"] == etag
        assert await cached.read() == b""
    stale = await api.get(path, headers=auth_header | {"If-None-Match": '"stale"'})
    assert stale.status == 200
    assert await stale.read() == await first.read()
    other = await api.get(path.replace(NPI, OTHER_NPI), headers=auth_header)
    assert other.status == 200
    assert other.headers["ETag"] != etag


async def test_rate_limit_per_subject(
    aiohttp_client: ClientFactory, sample_settings: Settings
) -> None:
    settings = sample_settings.model_copy(update={"rate_limit_per_s": 0.5, "rate_limit_burst": 3})
    app = create_app(settings)
    now = [0.0]  # the limiter's clock, moved by the test: no answer depends on the machine's pace
    app[LIMITER] = RateLimiter(0.5, 3, clock=lambda: now[0])
    client = await aiohttp_client(app)
    alice = {"Authorization": f"Bearer {mint_token(settings, subject='alice')}"}
    bob = {"Authorization": f"Bearer {mint_token(settings, subject='bob')}"}
    seen = []
    for _ in range(3):
        response = await client.get(PROVIDER, headers=alice)
        assert response.status == 200
        assert response.headers["RateLimit-Limit"] == "3"
        seen.append((response.headers["RateLimit-Remaining"], response.headers["RateLimit-Reset"]))
    # Reset: seconds until the bucket is full again, 2 s a token at 0.5 per second.
    assert seen == [("2", "2"), ("1", "4"), ("0", "6")]
    refused = await client.get(PROVIDER, headers=alice)
    await problem(refused, 429, "rate_limited")
    assert refused.headers["Retry-After"] == "2"  # one whole token, at 0.5 per second
    assert refused.headers["RateLimit-Remaining"] == "0"
    # Errors count too, and carry the headers; another subject has its own bucket.
    assert (await client.post("/v2/providers/search", json={}, headers=alice)).status == 429
    assert (await client.get(PROVIDER, headers=bob)).status == 200
    # Unauthenticated routes are not limited.
    assert (await client.get("/healthz")).status == 200
    now[0] = 2.0  # Retry-After later: one token back, and only one
    assert (await client.get(PROVIDER, headers=alice)).status == 200
    assert (await client.get(PROVIDER, headers=alice)).status == 429


async def test_rate_limit_headers_on_errors_and_switch_off(
    aiohttp_client: ClientFactory,
    es_url: str,
    served_names: IndexNames,
    auth_header: dict[str, str],
) -> None:
    limited = settings_for(es_url, served_names, rate_limited=True)  # the service's defaults
    client = await aiohttp_client(create_app(limited))
    invalid = await client.get("/v2/providers/123", headers=auth_header)
    assert invalid.status == 400
    assert "RateLimit-Remaining" in invalid.headers
    off = await aiohttp_client(create_app(limited.model_copy(update={"rate_limit_per_s": 0})))
    response = await off.get(PROVIDER, headers=auth_header)
    assert response.status == 200
    assert "RateLimit-Limit" not in response.headers


def test_token_bucket_refills_at_the_configured_rate() -> None:
    now = [0.0]
    limiter = RateLimiter(2.0, 4, clock=lambda: now[0], max_clients=2)
    assert [limiter.take("a").allowed for _ in range(5)] == [True] * 4 + [False]
    denied = limiter.take("a")
    assert denied.retry_after_s == 1 and denied.remaining == 0 and denied.reset_s == 2
    now[0] = 0.5  # one token back
    assert limiter.take("a").allowed
    assert not limiter.take("a").allowed
    now[0] = 100.0
    assert limiter.take("a").remaining == 3  # full again, burst caps the refill
    limiter.take("b")
    limiter.take("c")  # over max_clients: idle (full) buckets are forgotten first
    assert limiter.take("b").remaining == 2
