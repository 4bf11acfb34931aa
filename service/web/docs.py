"""GET /v2/openapi.json (the API description) and GET /v2/docs (a page that renders it)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from aiohttp import web

from service.web.keys import OPENAPI

DOCS_PAGE = Path(__file__).resolve().parent / "docs.html"


@cache
def _page() -> bytes:
    return DOCS_PAGE.read_bytes()


async def openapi_document(request: web.Request) -> web.Response:
    return web.Response(body=request.app[OPENAPI], content_type="application/json")


async def docs_page(_request: web.Request) -> web.Response:
    return web.Response(body=_page(), content_type="text/html", charset="utf-8")
