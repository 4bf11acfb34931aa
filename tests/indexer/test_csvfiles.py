"""The shared CSV layer: dates, column picking, comments, encodings."""

from __future__ import annotations

import gzip
from datetime import date
from pathlib import Path

import pytest

from indexer.sources.csvfiles import Columns, parse_date, read_rows


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("01/23/2007", date(2007, 1, 23)),
        ("1/2/24", date(2024, 1, 2)),
        ("8/31/07", date(2007, 8, 31)),
        ("12/31/69", date(1969, 12, 31)),
        ("2026-07-01", date(2026, 7, 1)),
        ("", None),
    ],
)
def test_parse_date(text: str, expected: date | None) -> None:
    assert parse_date(text) == expected


@pytest.mark.parametrize(
    "text", ["31-31-2024", "13/01/2024", "2024/01/02", "1/2/2024x", "tomorrow"]
)
def test_parse_date_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        parse_date(text)


def test_picker_reads_by_alias_and_pads_short_rows() -> None:
    columns = Columns(["A", " Old Name ", "C"], {"a": ("A",), "b": ("New Name", "Old Name")})
    pick = columns.picker(("b", "a", "missing"))
    assert pick(["1", " 2 ", "3"]) == ("2", "1", "")
    assert pick(["1"]) == ("", "1", "")
    assert columns.picker(("a",))([" x "]) == ("x",)


def test_comments_bom_gzip_and_mixed_encodings(tmp_path: Path) -> None:
    text = "\ufeff# a comment\nname,city\n# another\nPEÑA,SÃO PAULO\n\n"
    data = text.encode("utf-8").replace("PEÑA".encode(), "PE\xd1A".encode("latin-1"))
    path = tmp_path / "mixed.csv.gz"
    path.write_bytes(gzip.compress(data))
    columns, rows = read_rows(path, {"name": (), "city": ()}, comment="#")
    pick = columns.picker(("name", "city"))
    assert [(number, pick(row)) for number, row in rows] == [(1, ("PEÑA", "SÃO PAULO"))]
