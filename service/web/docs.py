"""GET /v2/openapi.json (the API description) and GET /v2/docs: Swagger UI, from the assets the
swagger-ui-py package ships (no CDN: a deployment may have no internet), with "try it out" and
the bearer token kept across reloads (Authorize)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import orjson
from aiohttp import web
from swagger_ui.core import ApplicationDocument
from swagger_ui.utils import SWAGGER_UI_PY_ROOT

from service.web.keys import OPENAPI

ASSETS = Path(SWAGGER_UI_PY_ROOT) / "static"
ASSETS_PATH = "/static"  # under the docs page's own path, where the page looks for them
TITLE = "Provider Directory & Coverage API"
_OPTIONS = {"persistAuthorization": "true", "tryItOutEnabled": "true", "deepLinking": "true"}


async def serve_openapi(request: web.Request) -> web.Response:
    return web.Response(body=request.app[OPENAPI], content_type="application/json")


@cache
def _page(docs_path: str, openapi_path: str) -> str:
    document = ApplicationDocument(
        None, config_rel_url=openapi_path, url_prefix=docs_path, title=TITLE, parameters=_OPTIONS
    )
    document.parameters["url"] = orjson.dumps(openapi_path).decode()
    page: str = document.doc_html
    return page


async def docs_page(request: web.Request) -> web.Response:
    openapi_path = request.app.router["openapi"].url_for().path
    page = _page(request.path.rstrip("/"), openapi_path)
    return web.Response(text=page, content_type="text/html", charset="utf-8")
