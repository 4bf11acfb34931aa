"""GET /v2/directories and GET /v2/directories/{name} (DESIGN 5.9)."""

from __future__ import annotations

from aiohttp import web
from pydantic import ValidationError

from service.directories.models import (
    NAME_RULE,
    DirectoryList,
    DirectoryReadParams,
    DirectoryScorecard,
)
from service.directories.read import directory_scorecard, list_directories
from service.web.contract import GET_ERRORS, JSON, Feature, Operation, Route, parameter, schema_ref
from service.web.jsonio import json_response
from service.web.keys import ES, INDEX_NAMES
from service.web.middleware import requires_scope
from service.web.problems import invalid_request
from service.web.validation import field_errors


@requires_scope("providers:read")
async def get_directories(http_request: web.Request) -> web.Response:
    app = http_request.app
    return json_response(await list_directories(app[ES], app[INDEX_NAMES]))


@requires_scope("providers:read")
async def get_directory(http_request: web.Request) -> web.Response:
    try:
        params = DirectoryReadParams.model_validate({"name": http_request.match_info["name"]})
    except ValidationError as error:
        raise invalid_request(field_errors(error)) from None
    app = http_request.app
    return json_response(await directory_scorecard(app[ES], app[INDEX_NAMES], params.name))


_NAME = parameter(
    "name",
    "path",
    NAME_RULE,
    DirectoryReadParams.model_json_schema()["properties"]["name"],
)
FEATURE = Feature(
    routes=(
        Route(
            "directories",
            "GET",
            "/directories",
            get_directories,
            Operation(
                "List the payer directories",
                "Every loaded payer Plan-Net directory, by name: when it was loaded and last"
                " changed, what it holds, and the count of each check that found something.",
                "directories",
                {200: (JSON, schema_ref("DirectoryList"))},
                tuple(status for status in GET_ERRORS if status != 404),
            ),
        ),
        Route(
            "directory",
            "GET",
            "/directories/{name}",
            get_directory,
            Operation(
                "Get a payer directory's scorecard",
                "How far a loaded payer directory is to be believed: when it was loaded and last"
                " changed, what it holds, how fresh its resources are (their meta.lastUpdated"
                " days), and for each check `{count, outOf, rate, examples}`. A name no loaded"
                " directory has is a 404 (`directory_not_found`).",
                "directories",
                {200: (JSON, schema_ref("DirectoryDoc"))},
                GET_ERRORS,
                path_parameters=(_NAME,),
            ),
        ),
    ),
    answers=(DirectoryList, DirectoryScorecard),
)
