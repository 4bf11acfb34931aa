"""GET /v2/changes (DESIGN 5.10)."""

from __future__ import annotations

from typing import Any

from aiohttp import web
from pydantic import ValidationError

from core.change_log import CHANGE_KINDS
from service.changes.models import (
    MAX_BID_IDS,
    MAX_NPIS,
    MAX_PAGE_SIZE,
    SINCE_RULE,
    ChangePage,
    ChangesParams,
)
from service.changes.read import read_changes
from service.fields import NPI_RULE
from service.web.contract import GET_ERRORS, JSON, Feature, Operation, Route, parameter, schema_ref
from service.web.jsonio import json_response
from service.web.keys import ES, INDEX_NAMES
from service.web.middleware import requires_scope
from service.web.problems import invalid_request
from service.web.validation import field_errors

_REPEATED = ("npi", "bidId", "kind")


def _params(http_request: web.Request) -> ChangesParams:
    query = http_request.query
    given: dict[str, Any] = {name: query.getall(name) for name in _REPEATED if name in query}
    given.update((name, query[name]) for name in query if name not in _REPEATED)
    try:
        return ChangesParams.model_validate(given)
    except ValidationError as error:
        raise invalid_request(field_errors(error)) from None


@requires_scope("providers:read")
async def get_changes(http_request: web.Request) -> web.Response:
    app = http_request.app
    return json_response(await read_changes(app[ES], app[INDEX_NAMES], _params(http_request)))


def _repeated(name: str, description: str, item: dict[str, Any], most: int | None) -> Any:
    schema: dict[str, Any] = {"type": "array", "items": item}
    if most is not None:
        schema["maxItems"] = most
    return {**parameter(name, "query", description, schema), "style": "form", "explode": True}


_PROPERTIES = ChangesParams.model_json_schema()["properties"]
_QUERY = (
    _repeated(
        "npi",
        f"repeatable: a provider followed ({NPI_RULE})",
        _PROPERTIES["npi"]["items"],
        MAX_NPIS,
    ),
    _repeated("bidId", "repeatable: a plan followed", _PROPERTIES["bidId"]["items"], MAX_BID_IDS),
    _repeated("kind", "repeatable: only these kinds", {"enum": list(CHANGE_KINDS)}, None),
    parameter("since", "query", SINCE_RULE, {"type": "string", "minLength": 1, "maxLength": 200}),
    parameter(
        "pageSize",
        "query",
        f"1-{MAX_PAGE_SIZE}",
        {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
    ),
)
FEATURE = Feature(
    routes=(
        Route(
            "changes",
            "GET",
            "/changes",
            get_changes,
            Operation(
                "What changed",
                "What loads and updates changed, per provider and plan, in commit order: a"
                " change matches when its NPI is among `npi` or its plan among `bidId` (every"
                " change when neither is given), and `kind` narrows. Follow `nextCursor`, always"
                " given, to go on or to poll later: no change is missed or repeated, also while"
                " an update runs. A cursor this feed never gave is a 404 (`cursor_not_found`),"
                " one from before the oldest change kept a 410 (`cursor_too_old`).",
                "changes",
                {200: (JSON, schema_ref("ChangePage"))},
                (*GET_ERRORS, 410),
                path_parameters=_QUERY,
            ),
        ),
    ),
    answers=(ChangePage,),
)
