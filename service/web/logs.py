"""Access logs as JSON lines, and a JSON formatter for every service log record.

The access line is built from an allow-list of fields: the path without its query string, never
a header. So an ``Authorization`` header, or a token someone put in the URL, cannot reach a log.
"""

from __future__ import annotations

import logging
import sys
from datetime import UTC, datetime
from typing import Any

import orjson
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

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


class MalformedRequestFilter(logging.Filter):
    """aiohttp answers a request it cannot parse (a NUL byte in a header, a bad request line)
    with a 400 itself, and logs an ERROR with a traceback. That is the client's mistake, not
    ours: one WARNING line instead, with the parser's reason but never the offending bytes
    (they may hold a header value, e.g. a token)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            reason = (error.message or "unreadable request").splitlines()[0].rstrip(":")
            remote = record.args[0] if isinstance(record.args, tuple) and record.args else "?"
            record.msg, record.args = "malformed request from %s: %s", (remote, reason)
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info = record.exc_text = None
        return True


def tame_aiohttp_logs() -> None:
    """aiohttp's own access line holds the request line, query string included, so a token put
    in a URL would be logged: this module's line replaces it however the app is run. Malformed
    requests are one warning line (MalformedRequestFilter)."""
    logging.getLogger("aiohttp.access").disabled = True
    server_log = logging.getLogger("aiohttp.server")
    if not any(isinstance(f, MalformedRequestFilter) for f in server_log.filters):
        server_log.addFilter(MalformedRequestFilter())


def configure_logging(level: int = logging.INFO) -> None:
    """JSON lines on stdout, where container platforms collect a service's log."""
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("elastic_transport").setLevel(logging.WARNING)
