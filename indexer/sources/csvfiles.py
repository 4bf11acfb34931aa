"""Streaming CSV reading shared by every source: gzip or plain, UTF-8 (with or without BOM) or
Latin-1 bytes, columns addressed by header name with the aliases CMS used over the years."""

from __future__ import annotations

import csv
import gzip
from collections.abc import Iterator, Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import IO, cast

csv.field_size_limit(1 << 24)


def _open_binary(path: Path) -> IO[bytes]:
    with open(path, "rb") as probe:
        magic = probe.read(2)
    if magic == b"\x1f\x8b":
        return cast(IO[bytes], gzip.open(path, "rb"))
    return open(path, "rb")


def _decode(line: bytes) -> str:
    # Files mix UTF-8 with stray Latin-1 bytes; decide per line so one byte never loses a row.
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line.decode("cp1252", errors="replace")


def _text_lines(path: Path) -> Iterator[str]:
    with _open_binary(path) as raw:
        first = True
        for line in raw:
            text = _decode(line)
            if first:
                text = text.removeprefix("\ufeff")
                first = False
            yield text


class Columns:
    """Positions of wanted columns in one file's header, found by name or any known alias."""

    def __init__(self, header: Sequence[str], aliases: Mapping[str, Sequence[str]]) -> None:
        positions = {name.strip().lower(): index for index, name in enumerate(header)}
        self._index: dict[str, int] = {}
        for canonical, names in aliases.items():
            for name in (canonical, *names):
                if name.lower() in positions:
                    self._index[canonical] = positions[name.lower()]
                    break

    def has(self, canonical: str) -> bool:
        return canonical in self._index

    def get(self, row: Sequence[str], canonical: str) -> str:
        index = self._index.get(canonical)
        if index is None or index >= len(row):
            return ""
        return row[index].strip()


def read_rows(
    path: Path, aliases: Mapping[str, Sequence[str]]
) -> tuple[Columns, Iterator[tuple[int, list[str]]]]:
    """The file's columns and an iterator of (data row number, 1-based, fields)."""
    reader = csv.reader(_text_lines(path), skipinitialspace=True)
    header = next(reader, None)
    if header is None:
        raise ValueError(f"{path.name}: empty file, no header")
    columns = Columns(header, aliases)

    def rows() -> Iterator[tuple[int, list[str]]]:
        for number, row in enumerate(reader, start=1):
            if row:
                yield number, row

    return columns, rows()


_DATE_FORMATS = ("%m/%d/%Y", "%m/%d/%y", "%Y-%m-%d")


def parse_date(value: str) -> date | None:
    """MM/DD/YYYY, M/D/YY or ISO; None for empty; ValueError for anything else."""
    if not value:
        return None
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(value, fmt).date()
        except ValueError:
            continue
    raise ValueError(f"unrecognised date {value!r}")
