"""Access logs as JSON lines, and a JSON formatter for every service log record.

The access line is built from an allow-list of fields: the path without its query string, never
a header. So an ``Authorization`` header, or a token someone put in the URL, cannot reach a log.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import orjson
from aiohttp import web

from service.web.keys import REQUEST_ID, SUBJECT
from service.web.metrics import route_label

access_log = logging.getLogger("service.access")


def _line(request: web.Request, status: int, seconds: float) -> dict[str, Any]:
    return {
        "time": datetime.now(UTC).isoformat(),
        "event": "access",
        "method": request.method,
        "path": request.path,
        "route": route_label(request),
        "status": status,
        "durationMs": round(seconds * 1000, 2),
        "requestId": request.get(REQUEST_ID),
        "subject": request.get(SUBJECT),
        "remote": request.remote,
    }


def log_request(request: web.Request, status: int, seconds: float) -> None:
    access_log.info(orjson.dumps(_line(request, status, seconds)).decode())


class JsonFormatter(logging.Formatter):
    """One JSON object per record; a message that is already JSON (access lines) is kept as is."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.name == access_log.name:
            return message
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": message,
        }
        request_id = getattr(record, "request_id", None)
        if request_id:
            entry["requestId"] = request_id
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(entry).decode()


def silence_aiohttp_access_log() -> None:
    """aiohttp's own access line holds the request line, query string included, so a token put
    in a URL would be logged; this module's line replaces it however the app is run."""
    logging.getLogger("aiohttp.access").disabled = True


def configure_logging(level: int = logging.INFO) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("elastic_transport").setLevel(logging.WARNING)
