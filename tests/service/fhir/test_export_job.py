"""The pure part of ``$export``: which slice of which snapshot a file's page asks for."""

from __future__ import annotations

from service.fhir.export.job import files_of, page_body

JOB = {
    "since": None,
    "day": "2026-01-15",
    "pits": {"search": "pit-of-search", "plans": "pit-of-plans"},
    "files": {"Practitioner": 3, "Endpoint": 1},
}


def test_a_type_has_a_file_per_started_slice_of_documents() -> None:
    assert [files_of(n, 100) for n in (0, 1, 100, 101)] == [0, 1, 1, 2]


def test_a_file_of_several_is_its_slice_of_the_types_snapshot() -> None:
    body = page_body(JOB, "Practitioner", 1, ["after"], 500)
    assert body["slice"] == {"id": 1, "max": 3}
    assert body["size"] == 500
    assert body["pit"]["id"] == "pit-of-search"
    assert body["search_after"] == ["after"]
    assert body["sort"] == ["_shard_doc"]


def test_a_types_only_file_is_not_sliced_and_reads_its_own_index() -> None:
    body = page_body(JOB, "Endpoint", 0, None, 500)
    assert "slice" not in body and "search_after" not in body
    assert body["pit"]["id"] == "pit-of-plans"
