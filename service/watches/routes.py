"""POST/GET /v2/watches, GET/DELETE /v2/watches/{id}, GET /v2/watches/{id}/deliveries
(DESIGN 5.10)."""

from __future__ import annotations

from aiohttp import web
from pydantic import ValidationError

from core.watches import (
    MAX_BATCH_CHANGES,
    MAX_PAYLOAD_BYTES,
    MAX_WATCHES_PER_SUBJECT,
    WEBHOOK_TYPE,
)
from service.watches import manage
from service.watches.models import (
    ID_RULE,
    CreatedWatch,
    DeliveryList,
    Watch,
    WatchIdParams,
    WatchList,
    WatchRequest,
)
from service.watches.targets import TargetRules
from service.watches.worker import delivery_loop
from service.web.contract import (
    GET_ERRORS,
    JSON,
    POST_ERRORS,
    Feature,
    Operation,
    Route,
    parameter,
    schema_ref,
)
from service.web.jsonio import json_response
from service.web.keys import ES, INDEX_NAMES, SETTINGS, SUBJECT
from service.web.middleware import requires_scope
from service.web.problems import invalid_request
from service.web.validation import field_errors, read_model

SCOPE = "watches:write"


def _watch_id(http_request: web.Request) -> str:
    try:
        return WatchIdParams.model_validate({"id": http_request.match_info["id"]}).id
    except ValidationError as error:
        raise invalid_request(field_errors(error)) from None


@requires_scope(SCOPE)
async def post_watch(http_request: web.Request) -> web.Response:
    request = await read_model(http_request, WatchRequest)
    app = http_request.app
    settings = app[SETTINGS]
    rules = TargetRules.of(settings.webhook_allow, settings.webhook_resolve_names)
    created = await manage.create_watch(
        app[ES], app[INDEX_NAMES], http_request[SUBJECT], request, rules
    )
    response = json_response(created, status=201)
    response.headers["Location"] = f"{http_request.path.rstrip('/')}/{created['id']}"
    return response


@requires_scope(SCOPE)
async def get_watches(http_request: web.Request) -> web.Response:
    app = http_request.app
    return json_response(
        await manage.list_watches(app[ES], app[INDEX_NAMES], http_request[SUBJECT])
    )


@requires_scope(SCOPE)
async def get_watch(http_request: web.Request) -> web.Response:
    app, watch_id = http_request.app, _watch_id(http_request)
    return json_response(
        await manage.read_watch(app[ES], app[INDEX_NAMES], http_request[SUBJECT], watch_id)
    )


@requires_scope(SCOPE)
async def delete_watch(http_request: web.Request) -> web.Response:
    app, watch_id = http_request.app, _watch_id(http_request)
    await manage.delete_watch(app[ES], app[INDEX_NAMES], http_request[SUBJECT], watch_id)
    return web.Response(status=204)


@requires_scope(SCOPE)
async def get_deliveries(http_request: web.Request) -> web.Response:
    app, watch_id = http_request.app, _watch_id(http_request)
    return json_response(
        await manage.read_deliveries(app[ES], app[INDEX_NAMES], http_request[SUBJECT], watch_id)
    )


_ID = parameter("id", "path", ID_RULE, WatchIdParams.model_json_schema()["properties"]["id"])
_WEBHOOKS = (
    f"Matching changes are POSTed to `url` as Standard Webhooks (`webhook-id`,"
    f" `webhook-timestamp`, `webhook-signature`: HMAC-SHA256 with the watch's secret), in order,"
    f" at least once: a body `{{type: {WEBHOOK_TYPE}, timestamp, data: {{watchId, changes,"
    f" nextCursor}}}}` of at most {MAX_BATCH_CHANGES} changes and {MAX_PAYLOAD_BYTES // 1024}"
    " KiB. A retry keeps its webhook-id. Any answer but a 2xx, or none within the timeout, is"
    " retried after 5 s, 10 s, 20 s ... up to an hour apart; after a day of failures the watch"
    " is marked failing and says why."
)
FEATURE = Feature(
    routes=(
        Route(
            "watches-create",
            "POST",
            "/watches",
            post_watch,
            Operation(
                "Watch providers and plans",
                "A change matches the watch when its NPI is among `npis` or its plan among"
                " `bidIds`; `kinds` narrows both. Only changes after its creation are sent."
                f" {_WEBHOOKS} The URL must be http(s) and reach a public address unless the"
                " operator allows its host (a loopback, private, link-local or metadata address"
                " is a 400, `webhook_target_refused`); redirects are not followed. A subject"
                f" holds at most {MAX_WATCHES_PER_SUBJECT} watches (409, `too_many_watches`). The"
                " secret is answered once, here.",
                "watches",
                {201: (JSON, schema_ref("CreatedWatch"))},
                (*POST_ERRORS, 409),
                request="WatchRequest",
                examples={
                    "a client's doctors": {
                        "npis": ["1003000100"],
                        "bidIds": ["H1234_001_000"],
                        "url": "https://advisor.example.com/hooks/directory",
                    }
                },
            ),
        ),
        Route(
            "watches",
            "GET",
            "/watches",
            get_watches,
            Operation(
                "List your watches",
                "The watches the token's subject made, oldest first (never their secrets).",
                "watches",
                {200: (JSON, schema_ref("WatchList"))},
                tuple(status for status in GET_ERRORS if status != 404),
            ),
        ),
        Route(
            "watch",
            "GET",
            "/watches/{id}",
            get_watch,
            Operation(
                "Get a watch",
                "A watch of yours and how far its delivery got; another subject's is a 404.",
                "watches",
                {200: (JSON, schema_ref("Watch"))},
                GET_ERRORS,
                path_parameters=(_ID,),
            ),
        ),
        Route(
            "watch-delete",
            "DELETE",
            "/watches/{id}",
            delete_watch,
            Operation(
                "Delete a watch",
                "Nothing more is sent for it; another subject's is a 404.",
                "watches",
                {204: (None, {})},
                GET_ERRORS,
                path_parameters=(_ID,),
            ),
        ),
        Route(
            "watch-deliveries",
            "GET",
            "/watches/{id}/deliveries",
            get_deliveries,
            Operation(
                "A watch's deliveries",
                "Its status and its delivery attempts, newest first: the webhook id, the"
                " changes carried, what the receiver answered, and when a failed batch is tried"
                " again.",
                "watches",
                {200: (JSON, schema_ref("DeliveryList"))},
                GET_ERRORS,
                path_parameters=(_ID,),
            ),
        ),
    ),
    requests=(WatchRequest,),
    answers=(Watch, CreatedWatch, WatchList, DeliveryList),
    background=(delivery_loop,),
)
