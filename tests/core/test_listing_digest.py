"""core.search_fields.listing_digest: a search document's digest, whether made from the document
(or its source read back) or from the bytes a load sends with its stamp last."""

from __future__ import annotations

import orjson

from core.search_fields import listing_digest, stamp_length, stamped_digest

DOC = {
    "npi": "1234567893",
    "provider": {"lastName": "Ávila", "npis": ["1234567893"]},
    "locations": [{"id": "a", "point": {"lat": 40.712776, "lon": -74.005974}}],
    "networks": [],
}


def test_the_bytes_a_load_sends_digest_as_the_document_read_back() -> None:
    at = "2026-12-07T03:13:05Z"
    body = orjson.dumps({**DOC, "changedAt": at})
    read_back = orjson.loads(body)
    assert stamped_digest(body, stamp_length(at)) == listing_digest(read_back)
    assert listing_digest(read_back) == listing_digest(DOC)  # the stamp is left out


def test_any_change_of_what_it_serves_changes_the_digest() -> None:
    moved = {**DOC, "locations": [{"id": "a", "point": {"lat": 40.712777, "lon": -74.005974}}]}
    renamed = {**DOC, "provider": {"lastName": "Avila", "npis": ["1234567893"]}}
    joined = {**DOC, "networks": [{"key": "2026:H1234-001", "period": {"gte": "2026-01-01"}}]}
    digests = {listing_digest(doc) for doc in (DOC, moved, renamed, joined)}
    assert len(digests) == 4
    assert all(-(1 << 63) <= digest < (1 << 63) for digest in digests)
