"""Opaque page tokens (service.search_kit.tokens, under /v2 search's and /fhir's cursors and
plans'): what one encodes decodes, and a token with a character base64url does not hold is not
ours (a lenient decoder drops such characters and reads the rest as the original)."""

from __future__ import annotations

import base64
import json

import pytest

from service.search_kit.tokens import decode_token, encode_token

VALUE = {"after": [12.5, "1234567893"], "skip": 3, "phase": None}


def _by_hand(value: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


def test_a_token_reads_back_as_the_value_it_was_made_from() -> None:
    assert decode_token(encode_token(VALUE)) == VALUE
    assert decode_token(_by_hand(VALUE)) == VALUE


@pytest.mark.parametrize("junk", ["!", "*", "=", " ", ".", "+", "/", "\u00e9"])
def test_a_character_outside_base64url_makes_it_not_a_token(junk: str) -> None:
    token = _by_hand(VALUE)
    with pytest.raises(ValueError, match="not a page token"):
        decode_token(token[:8] + junk + token[8:])


@pytest.mark.parametrize("token", ["", "e", "bm90IGpzb24", "W10x"])  # "", 1 char, "not json"
def test_what_is_not_base64url_json_is_not_a_token(token: str) -> None:
    with pytest.raises(ValueError, match="not a page token"):
        decode_token(token)
