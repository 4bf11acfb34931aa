"""The two lookup answers as stored: serialised once at index time exactly as the API sends them,
so a lookup passes the stored bytes through without building them. Their strong ETags are made
from those bytes when they are read (a microsecond), not stored: 40 hex digits per answer are
the least compressible bytes of the lookup index (issue 35)."""

from __future__ import annotations

import hashlib
from typing import cast

import orjson

from core.documents import Location, LookupDoc, Provider
from core.quality import QualityCode


def entity_tag(body: bytes) -> str:
    """A strong validator: the same bytes always give the same tag, other bytes another."""
    return f'"{hashlib.sha256(body).hexdigest()[:40]}"'


def answer_order(location: Location) -> tuple[bool, str]:
    return location["source"] != "nppes", location["id"]


def lookup_document(provider: Provider, locations: list[Location]) -> LookupDoc:
    """The provider's answer and its locations' answer (the NPPES practice address first, then
    the others by id), and the date the update compares rows with."""
    return {
        "provider": orjson.dumps(provider).decode(),
        "locations": orjson.dumps(
            sorted(locations, key=answer_order) if len(locations) > 1 else locations
        ).decode(),
        "lastUpdated": provider["lastUpdated"],
    }


def stored_answer(text: str) -> Provider:
    """A stored answer that an answer embeds as it is: its bytes, written by orjson without
    being parsed and serialised again (typed as what they hold)."""
    return cast(Provider, orjson.Fragment(text))


def stored_flags(doc: LookupDoc) -> list[QualityCode]:
    """The codes of the stored provider's ``dataQuality`` notes, parsing it only when it has
    some (most providers have none)."""
    text = doc["provider"]
    if '"dataQuality"' not in text:
        return []
    notes = orjson.loads(text)["dataQuality"]
    return list(dict.fromkeys(note["code"] for note in notes))


def stored_provider(doc: LookupDoc) -> Provider:
    return cast(Provider, orjson.loads(doc["provider"]))


def stored_locations(doc: LookupDoc) -> list[Location]:
    return cast(list[Location], orjson.loads(doc["locations"]))
