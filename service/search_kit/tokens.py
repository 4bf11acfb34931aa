"""Opaque page tokens: a JSON value as unpadded base64url, and back (pure)."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import orjson


def encode_token(value: Any) -> str:
    return base64.urlsafe_b64encode(orjson.dumps(value)).decode().rstrip("=")


def decode_token(token: str) -> Any:
    """``encode_token``'s value; ValueError for anything it did not make."""
    try:
        return orjson.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    except (binascii.Error, orjson.JSONDecodeError) as error:
        raise ValueError("not a page token") from error
