"""The pure part of ``$export``: which slice of which snapshot a file's page asks for, and the
job as the jobs index stores it."""

from __future__ import annotations

from datetime import UTC, date, datetime

from service.fhir.export.job import files_of, page_body
from service.fhir.export.models import ExportJob, StoredJob

JOB = ExportJob(
    request="http://localhost/fhir/$export",
    types=("Practitioner", "Endpoint"),
    since=None,
    day=date(2026, 1, 15),
    transaction_time=datetime(2026, 1, 15, 10, tzinfo=UTC),
    expires=datetime(2026, 1, 15, 11, tzinfo=UTC),
    pits={"search": "pit-of-search", "plans": "pit-of-plans"},
    files={"Practitioner": 3, "Endpoint": 1},
)
# A job as the kick-off records it, key for key.
STORED: StoredJob = {
    "request": "http://localhost/fhir/$export?_since=2026-01-01T00:00:00.5Z",
    "types": ["Organization", "Endpoint"],
    "since": "2026-01-01T00:00:00.500000+00:00",
    "day": "2026-01-15",
    "transactionTime": "2026-01-15T10:00:00Z",
    "expires": "2026-01-15T11:00:00Z",
    "pits": {"plans": "pit-p", "search": "pit-s", "deleted": "pit-r"},
    "files": {"Organization": 2, "Endpoint": 0},
    "built": {"Organization": True},
    "ignored": [["_elements", "_elements: not supported by this server's $export"]],
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


def test_a_stored_job_is_read_and_stored_again_unchanged() -> None:
    job = ExportJob.from_stored(STORED)
    assert job.since == datetime(2026, 1, 1, 0, 0, 0, 500_000, tzinfo=UTC)
    assert job.ignored == (("_elements", "_elements: not supported by this server's $export"),)
    stored = job.stored()
    assert stored == STORED and list(stored) == list(STORED)
    assert list(stored["pits"]) == list(STORED["pits"])
    assert ExportJob.from_stored(JOB.stored()) == JOB


def test_a_job_stored_without_built_or_ignored_has_none() -> None:
    older: StoredJob = {k: v for k, v in STORED.items() if k not in ("built", "ignored")}  # type: ignore[assignment]
    job = ExportJob.from_stored(older)
    assert job.built == {} and job.ignored == ()


def test_a_job_expires_at_its_instant_to_the_second() -> None:
    assert not JOB.expired(datetime(2026, 1, 15, 10, 59, 59, 999_999, tzinfo=UTC))
    assert JOB.expired(datetime(2026, 1, 15, 11, tzinfo=UTC))
