"""A pytest plugin that writes down every request the tests send to the service: with
``PD_REQUEST_LOG=<file>`` and ``-p tests.request_log``, each request through aiohttp's test
client is appended to ``<file>.<pid>`` (one JSON line: method, path, headers, body), for
``devtools/replay_answers.py`` to ask two builds of the service and compare their answers."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from aiohttp.test_utils import TestClient

LOG_VARIABLE = "PD_REQUEST_LOG"
# What can change an answer; a token is the replay's own, so Authorization is not kept.
KEPT_HEADERS = ("accept", "prefer", "content-type", "if-none-match", "x-request-id")


def _body(kwargs: dict[str, Any]) -> dict[str, Any]:
    if "json" in kwargs and kwargs["json"] is not None:
        return {"json": kwargs["json"]}
    data = kwargs.get("data")
    if isinstance(data, str):
        data = data.encode()
    if isinstance(data, bytes):
        return {"bytes": base64.b64encode(data).decode()}
    if isinstance(data, dict):
        return {"form": {str(k): str(v) for k, v in data.items()}}
    return {}


def _entry(method: str, path: Any, kwargs: dict[str, Any]) -> bytes:
    headers = {
        name.lower(): str(value)
        for name, value in dict(kwargs.get("headers") or {}).items()
        if name.lower() in KEPT_HEADERS
    }
    params = kwargs.get("params")
    entry = {
        "method": method.upper(),
        "path": str(path),
        "params": [[str(k), str(v)] for k, v in (dict(params).items() if params else [])],
        "headers": headers,
        **_body(kwargs),
    }
    return orjson.dumps(entry, default=str) + b"\n"


def _append(log: Path, line: bytes) -> None:
    with log.open("ab") as out:
        out.write(line)


def pytest_configure(config: pytest.Config) -> None:
    target = os.environ.get(LOG_VARIABLE)
    if not target:
        return
    log = Path(f"{target}.{os.getpid()}")
    original = TestClient._request

    async def logged(self: TestClient[Any, Any], method: str, path: Any, **kwargs: Any) -> Any:
        _append(log, _entry(method, path, kwargs))
        return await original(self, method, path, **kwargs)

    TestClient._request = logged  # type: ignore[method-assign]
