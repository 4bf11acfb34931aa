"""Plan search cursors: the request and the offset of the next page, opaque to clients (pure).

The whole ordered list of an area's plans is rebuilt for each page (an area holds a few hundred
plans at most), so a cursor needs no server state and never expires.
"""

from __future__ import annotations

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError

from service.errors import CursorNotFound
from service.plans.models import PlanSearchRequest
from service.search_kit.tokens import decode_token, encode_token

CURSOR_VERSION = 1


class PlanCursor(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    v: int
    request: dict[str, object]
    offset: int


def encode_cursor(request: PlanSearchRequest, offset: int) -> str:
    asked = request.model_dump(exclude={"cursor", "pageSize"}, exclude_none=True)
    state = PlanCursor(v=CURSOR_VERSION, request=asked, offset=offset)
    return encode_token(state.model_dump())


def decode_cursor(request: PlanSearchRequest) -> tuple[PlanSearchRequest, int]:
    """The request a cursor carries (with this page's size) and where its page starts; a
    request without a cursor starts at 0."""
    if request.cursor is None:
        return request, 0
    try:
        state = PlanCursor.model_validate(decode_token(request.cursor))
        if state.v != CURSOR_VERSION or state.offset < 0:
            raise ValueError("another version")
        fields = {**state.request, "pageSize": request.pageSize}
        asked = PlanSearchRequest.model_validate_json(orjson.dumps(fields))
    except (ValueError, ValidationError) as error:
        raise CursorNotFound("no plan search issued this cursor") from error
    return asked, state.offset
