"""What a provider lookup asks for and what it answers: one of the two stored answers."""

from __future__ import annotations

from typing import Literal, NamedTuple

Part = Literal["provider", "locations"]  # GET /providers/{npi} or GET /providers/{npi}/locations


class StoredAnswer(NamedTuple):
    """The answer's JSON as stored at index time, and its ETag."""

    body: bytes
    tag: str
