"""Pure mapping helpers."""

from __future__ import annotations

import pytest

from indexer.documents import format_zip, normalize_credentials


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("M.D.", ["MD"]),
        ("M.D., Ph.D.", ["MD", "PHD"]),
        ("md; mph / facp", ["MD", "MPH", "FACP"]),
        ("", []),
        ("D.O.,  D.O.", ["DO"]),
        ("NURSE  PRACTITIONER", ["NURSE PRACTITIONER"]),
    ],
)
def test_normalize_credentials(text: str, expected: list[str]) -> None:
    assert normalize_credentials(text) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("902483523", "90248-3523"), ("10013", "10013"), ("", None), ("C1C 1", "C1C 1")],
)
def test_format_zip(raw: str, expected: str | None) -> None:
    assert format_zip(raw) == expected
