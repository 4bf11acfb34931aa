"""Request bodies: JSON reading and pydantic validation failures as 400/415 problems."""

from __future__ import annotations

import re
import types
from collections.abc import Awaitable
from datetime import date
from typing import Any, Protocol, TypeVar, Union, get_args, get_origin

from aiohttp import web
from elasticsearch import AsyncElasticsearch
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from core.index_contract import IndexNames
from service.web.jsonio import json_response
from service.web.keys import ES, INDEX_NAMES, TODAY
from service.web.problems import FieldError, ProblemError, invalid_request

Model = TypeVar("Model", bound=BaseModel)
_Body = TypeVar("_Body", bound=BaseModel, contravariant=True)
# A model whose field takes one of several object forms names it here, with the message for an
# input of none of the forms: ``union_messages: ClassVar[dict[str, str]]``.
UNION_MESSAGES_ATTRIBUTE = "union_messages"
_FIELD_PREFIX = re.compile(r"^([A-Za-z]+): (.+)$", re.DOTALL)


def _object_forms(annotation: Any) -> frozenset[str]:
    """The names pydantic puts in error locations for a union's model members."""
    if get_origin(annotation) in (Union, types.UnionType):
        return frozenset().union(*(_object_forms(arg) for arg in get_args(annotation)))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return frozenset({annotation.__name__})
    return frozenset()


def _union_member_errors(items: list[ErrorDetails], tags: frozenset[str]) -> list[ErrorDetails]:
    """For a union field, keep the errors of the member whose shape the input had (no missing
    or unknown keys), e.g. {"lat": 140, "lng": 0} reports lat's range, not every other form."""
    by_member: dict[str, list[ErrorDetails]] = {}
    for item in items:
        if len(item["loc"]) > 1 and str(item["loc"][1]) in tags:
            by_member.setdefault(str(item["loc"][1]), []).append(item)
    shape_errors = {"missing", "extra_forbidden", "model_type", "string_type"}
    for member_items in by_member.values():
        if not any(i["type"] in shape_errors for i in member_items):
            return [{**i, "loc": (i["loc"][0], *i["loc"][2:])} for i in member_items]
    return []


def field_errors(error: ValidationError, model: type[BaseModel] | None = None) -> list[FieldError]:
    """One message per field; model-level messages written "field: message" name their field."""
    seen: dict[str, str] = {}
    items = error.errors(include_url=False)
    union_messages: dict[str, str] = getattr(model, UNION_MESSAGES_ATTRIBUTE, {})
    for union_field, message in union_messages.items():
        in_union = [i for i in items if i["loc"] and i["loc"][0] == union_field]
        if len(in_union) > 1 and model is not None:
            tags = _object_forms(model.model_fields[union_field].annotation)
            chosen = _union_member_errors(in_union, tags)
            items = [i for i in items if i not in in_union] + chosen
            if not chosen:
                seen[union_field] = message
    for item in items:
        loc = [str(part) for part in item["loc"]]
        message = item["msg"].removeprefix("Value error, ")
        path = ".".join(loc)
        if not path and (match := _FIELD_PREFIX.match(message)):
            path, message = match.group(1), match.group(2)
        seen.setdefault(path or "(body)", message)
    return [{"field": field, "message": message} for field, message in seen.items()]


async def read_model(request: web.Request, model: type[Model]) -> Model:
    """The JSON body validated as ``model``; 415 for another media type, 400 for bad JSON."""
    if request.content_type != "application/json":
        raise ProblemError(
            415,
            "unsupported_media_type",
            "send the request body as application/json",
        )
    raw = await request.read()
    if not raw.strip():
        raise invalid_request([{"field": "(body)", "message": "the request body is empty"}])
    try:
        return model.model_validate_json(raw)
    except ValidationError as error:
        if any(item["type"] == "json_invalid" for item in error.errors()):
            raise ProblemError(
                400, "malformed_json", "the request body is not valid JSON"
            ) from None
        raise invalid_request(field_errors(error, model)) from None


class BodyUseCase(Protocol[_Body]):
    """A use case that answers a validated request body on the service's day."""

    def __call__(
        self, es: AsyncElasticsearch, names: IndexNames, request: _Body, /, *, today: date
    ) -> Awaitable[object]: ...


async def answer_body(
    http_request: web.Request, model: type[_Body], use_case: BodyUseCase[_Body]
) -> web.Response:
    """A POST route's whole job: the body read as ``model``, the use case's answer as JSON."""
    request = await read_model(http_request, model)
    app = http_request.app
    return json_response(await use_case(app[ES], app[INDEX_NAMES], request, today=app[TODAY]()))
