"""The stored lookup answers: the API's bytes, their tag, the locations in answer order."""

from __future__ import annotations

import hashlib
from typing import Any, cast

import orjson

from core.documents import Location, Provider
from core.lookup_answers import entity_tag, lookup_document, stored_locations, stored_provider


def _location(location_id: str, source: str) -> Location:
    return cast(Location, {"id": location_id, "source": source, "address": {"city": "Ely"}})


PROVIDER = cast(Provider, {"npi": "1234567893", "lastName": "Ávila", "lastUpdated": "2024-01-07"})


def test_locations_answer_the_nppes_address_first_then_the_others_by_id() -> None:
    locations = [_location("c", "dac"), _location("b", "dac"), _location("z", "nppes")]
    doc = lookup_document(PROVIDER, locations)
    assert [location["id"] for location in stored_locations(doc)] == ["z", "b", "c"]


def test_each_answer_is_its_json() -> None:
    doc = lookup_document(PROVIDER, [_location("a", "nppes")])
    assert doc["provider"].encode() == orjson.dumps(PROVIDER)
    assert stored_provider(doc) == PROVIDER
    assert doc["lastUpdated"] == "2024-01-07"


def test_the_tag_is_of_the_bytes() -> None:
    body = orjson.dumps(PROVIDER)
    assert entity_tag(body) == f'"{hashlib.sha256(body).hexdigest()[:40]}"'
    changed = cast(Provider, {**cast(dict[str, Any], PROVIDER), "lastName": "Avila"})
    assert entity_tag(orjson.dumps(changed)) != entity_tag(body)
