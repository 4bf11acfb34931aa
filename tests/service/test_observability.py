"""JSON access logs (never a token), Prometheus metrics, the JSON log formatter."""

from __future__ import annotations

import json
import logging
import re

import pytest

from service.web.app import create_app
from service.web.auth import mint_token
from service.web.logs import JsonFormatter
from service.web.settings import Settings
from tests.conftest import BOOM_PATH, ApiClient, ClientFactory

PROVIDER = "/v2/providers/1003000100"


def access_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == "service.access"]


async def test_one_json_access_line_per_request(
    api: ApiClient, auth_header: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="service.access")
    await api.get(PROVIDER, headers=auth_header | {"X-Request-ID": "req-1"})
    await api.get("/v2/nowhere?x=1", headers={"X-Request-ID": "req-2"})
    await api.post("/v2/providers/search", json={"query": "x"})
    found, missing, unauthorized = access_lines(caplog)
    assert found["method"] == "GET"
    assert found["path"] == PROVIDER
    assert found["route"] == "/v2/providers/{npi}"
    assert found["status"] == 200
    assert found["requestId"] == "req-1"
    assert found["subject"] == "developer"
    assert isinstance(found["durationMs"], float) and found["durationMs"] >= 0
    assert {"time", "remote"} <= found.keys()
    assert (missing["path"], missing["status"], missing["requestId"]) == (
        "/v2/nowhere",
        404,
        "req-2",
    )
    assert missing["subject"] is None
    assert (unauthorized["status"], unauthorized["subject"]) == (401, None)


async def test_tokens_never_reach_the_logs(
    failing_api: ApiClient, sample_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    client = failing_api
    token = mint_token(sample_settings)
    expired = mint_token(sample_settings, ttl_s=1).rsplit(".", 1)[0] + ".forged"
    caplog.set_level(logging.DEBUG)
    for value in (token, expired):
        auth = {"Authorization": f"Bearer {value}"}
        await client.get(PROVIDER, headers=auth)
        await client.get(f"{PROVIDER}?access_token={value}")
        await client.post("/v2/providers/search", json={"query": value[:200]}, headers=auth)
        await client.get(BOOM_PATH, headers=auth)
        await client.get("/v2/providers/123", headers=auth)
    formatter = JsonFormatter()
    text = "\n".join(formatter.format(r) + r.getMessage() for r in caplog.records)
    assert len(access_lines(caplog)) == 10
    signature = token.rsplit(".", 1)[1]
    for secret_part in (token, expired, signature, "Bearer", "access_token"):
        assert secret_part not in text


async def test_metrics_count_requests_and_elasticsearch_calls(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    for _ in range(3):
        assert (await api.get(PROVIDER, headers=auth_header)).status == 200
    await api.get("/v2/providers/123", headers=auth_header)
    await api.get("/v2/nowhere/at/all/1")
    response = await api.get("/metrics")
    assert response.status == 200
    assert response.content_type == "text/plain"
    text = await response.text()
    ok = 'pd_http_requests_total{method="GET",route="/v2/providers/{npi}",status="200"} 3.0'
    assert ok in text
    assert 'route="/v2/providers/{npi}",status="400"} 1.0' in text
    assert 'route="(unmatched)",status="404"} 1.0' in text
    assert "/v2/nowhere" not in text  # templates only: the label set stays bounded
    # Every request is in the histogram (+Inf bucket and count); which finite bucket holds it
    # depends on the machine, so it is not asserted.
    for series in ('_bucket{le="+Inf",', "_count{"):
        labels = 'method="GET",route="/v2/providers/{npi}",status="200"'
        assert f"pd_http_request_duration_seconds{series}{labels}}} 3.0" in text
    assert re.search(
        r'pd_elasticsearch_request_duration_seconds_count\{operation="_source",outcome="200"\} '
        r"[3-9]",
        text,
    )


async def test_metrics_need_no_auth_and_can_be_switched_off(
    aiohttp_client: ClientFactory, sample_settings: Settings
) -> None:
    off = await aiohttp_client(
        create_app(sample_settings.model_copy(update={"metrics_enabled": False}))
    )
    assert (await off.get("/metrics")).status == 404
    assert (await off.get("/healthz")).status == 200


def test_json_formatter_keeps_the_request_id_and_the_exception() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.LogRecord(
            "service.web.problems", logging.ERROR, __file__, 1, "failed", (), None
        )
        record.exc_info = __import__("sys").exc_info()
    record.request_id = "abc"
    entry = json.loads(JsonFormatter().format(record))
    assert entry["requestId"] == "abc"
    assert entry["level"] == "ERROR"
    assert "ValueError: boom" in entry["exception"]
