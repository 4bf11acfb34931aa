"""Requests aiohttp cannot parse: a 400 and one warning line, never an ERROR with a traceback,
and never the offending bytes in the log (they may be a header value such as a token)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.conftest import ApiClient

SECRET_LOOKING = b"Bearer abc.def.ghi"


@pytest.mark.parametrize(
    "raw",
    [
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nAuthorization: " + SECRET_LOOKING + b"\x00\r\n\r\n",
        b"GET /he\x00althz HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Name: 1\r\n\r\n",
    ],
    ids=["nul-in-header-value", "nul-in-path", "space-in-header-name"],
)
async def test_unparsable_request_is_a_400_and_one_warning(
    api: ApiClient, raw: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="aiohttp.server")
    reader, writer = await asyncio.open_connection(api.server.host, api.server.port)
    try:
        writer.write(raw)
        await writer.drain()
        # A guard against a hang, not a measure of speed.
        status_line = await asyncio.wait_for(reader.readline(), timeout=120)
    finally:
        writer.close()
    assert status_line.startswith(b"HTTP/1.") and b" 400 " in status_line
    records = [r for r in caplog.records if r.name == "aiohttp.server"]
    assert len(records) == 1
    [record] = records
    assert record.levelno == logging.WARNING
    assert record.exc_info is None and record.exc_text is None
    message = record.getMessage()
    assert message.startswith("malformed request from ")
    assert SECRET_LOOKING.decode() not in message and "\\x00" not in message
