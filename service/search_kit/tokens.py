"""Opaque page tokens: a JSON value as unpadded base64url, and back (pure)."""

from __future__ import annotations

import base64
from typing import Any

import orjson


def encode_token(value: Any) -> str:
    return base64.urlsafe_b64encode(orjson.dumps(value)).decode().rstrip("=")


def decode_token(token: str) -> Any:
    """``encode_token``'s value; ValueError for anything it did not make."""
    try:
        padded = token + "=" * (-len(token) % 4)
        # Strict: a character outside the alphabet is refused, not silently dropped.
        return orjson.loads(base64.b64decode(padded, altchars=b"-_", validate=True))
    except ValueError as error:  # binascii.Error, orjson's, a non-ASCII character
        raise ValueError("not a page token") from error
