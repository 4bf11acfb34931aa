"""Where a FHIR search's next page starts, as an opaque ``_cursor`` (pure)."""

from __future__ import annotations

from typing import Any

from service.errors import InvalidInput
from service.search_kit.tokens import decode_token, encode_token

_NOT_OURS = "_cursor: not a page this server gave"
# A page past the search index's matches, among the resources built from the plans: an
# Organization search's payers and networks, a Location search's counties.
PLAN_PHASE = "plans"


def encode_cursor(after: list[Any] | None, skip: int = 0, phase: str | None = None) -> str:
    """Where the next page starts: after the hit with these sort values, ``skip`` matches
    further (a Location page ending inside a hit; a page of resources held in memory), in
    ``phase`` (PLAN_PHASE: the plan-built resources, after the search index's)."""
    return encode_token({"after": after, "skip": skip, "phase": phase})


def decode_cursor(token: str | None) -> tuple[list[Any] | None, int, str | None]:
    """``encode_cursor``'s values; the first page's (nothing after, nothing skipped) for None."""
    if token is None:
        return None, 0, None
    try:
        decoded = decode_token(token)
        after, skip, phase = decoded["after"], int(decoded["skip"]), decoded.get("phase")
    except (ValueError, KeyError, TypeError, AttributeError):
        raise InvalidInput("_cursor", _NOT_OURS) from None
    sort_values = after if isinstance(after, list) else []
    if (
        (after is not None and not isinstance(after, list))
        or len(sort_values) > 2
        or any(isinstance(v, bool) or not isinstance(v, str | int | float) for v in sort_values)
        or not isinstance(phase, str | None)
    ):
        raise InvalidInput("_cursor", _NOT_OURS)
    return after, max(skip, 0), phase
