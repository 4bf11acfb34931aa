"""Opaque cursors for deep paging: the request, the point in time and the last sort values."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError

from service.errors import CursorNotFound
from service.search.models import SearchRequest
from service.search_kit.tokens import decode_token, encode_token

CURSOR_VERSION = 1


class CursorState(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    v: int
    request: dict[str, Any]
    pit: str | None
    after: list[Any]


def encode_cursor(request: SearchRequest, pit: str | None, after: list[Any]) -> str:
    state = CursorState(
        v=CURSOR_VERSION,
        request=request.model_dump(exclude={"cursor", "offset", "facets"}, exclude_none=True),
        pit=pit,
        after=after,
    )
    return encode_token(state.model_dump())


def decode_cursor(cursor: str, page_size: int | None) -> tuple[SearchRequest, CursorState]:
    """The original request (with this page's size) and the paging state."""
    try:
        state = CursorState.model_validate(decode_token(cursor))
        if state.v != CURSOR_VERSION:
            raise CursorNotFound("the cursor is from another version")
        fields = {**state.request, "facets": False}
        if page_size is not None:
            fields["pageSize"] = page_size
        request = SearchRequest.model_validate_json(orjson.dumps(fields))
    except CursorNotFound:
        raise
    except (ValueError, ValidationError) as error:
        raise CursorNotFound("no search issued this cursor") from error
    return request, state
