"""Streaming CSV reading shared by every source: gzip or plain, UTF-8 (with or without BOM) or
Latin-1 bytes, columns addressed by header name with the aliases CMS used over the years."""

from __future__ import annotations

import codecs
import csv
import gzip
import io
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import date
from functools import lru_cache
from operator import itemgetter
from pathlib import Path
from typing import IO, cast

csv.field_size_limit(1 << 24)

_FALLBACK_ERRORS = "provider-indexer-cp1252"


def _cp1252_fallback(error: UnicodeError) -> tuple[str, int]:
    # Files mix UTF-8 with stray Latin-1/cp1252 bytes: decode only the offending bytes that way,
    # so one byte never loses a row and the valid UTF-8 around it stays intact.
    if not isinstance(error, UnicodeDecodeError):
        raise error
    chunk = error.object[error.start : error.end]
    return chunk.decode("cp1252", errors="replace"), error.end


codecs.register_error(_FALLBACK_ERRORS, _cp1252_fallback)


class ReadPosition:
    """How far into its file (on disk, so compressed bytes for gzip) a reader has got."""

    def __init__(self) -> None:
        self._raw: IO[bytes] | None = None

    def attach(self, raw: IO[bytes]) -> None:
        self._raw = raw

    def bytes_read(self) -> int:
        if self._raw is None or self._raw.closed:
            return 0
        return self._raw.tell()


def open_binary(path: Path, position: ReadPosition | None = None) -> IO[bytes]:
    """The file's bytes, gunzipped when it starts with the gzip magic number."""
    with open(path, "rb") as probe:
        magic = probe.read(2)
    if magic == b"\x1f\x8b":
        unzipped = gzip.open(path, "rb")  # noqa: SIM115 (the caller owns it)
        if position is not None:
            position.attach(cast(IO[bytes], unzipped.fileobj))
        return cast(IO[bytes], unzipped)
    handle = open(path, "rb")  # noqa: SIM115 (the caller owns it)
    if position is not None:
        position.attach(handle)
    return handle


def open_text(path: Path, position: ReadPosition | None = None) -> IO[str]:
    """Decoded text for the csv module: BOM dropped, line endings untouched (``newline=""``)."""
    return io.TextIOWrapper(
        open_binary(path, position), encoding="utf-8-sig", errors=_FALLBACK_ERRORS, newline=""
    )


Picker = Callable[[list[str]], tuple[str, ...]]


class Columns:
    """Positions of wanted columns in one file's header, found by name or any known alias."""

    def __init__(self, header: Sequence[str], aliases: Mapping[str, Sequence[str]]) -> None:
        positions = {name.strip().lower(): index for index, name in enumerate(header)}
        self.header = list(header)
        self.width = len(header)
        self._index: dict[str, int] = {}
        for canonical, names in aliases.items():
            for name in (canonical, *names):
                if name.strip().lower() in positions:
                    self._index[canonical] = positions[name.strip().lower()]
                    break

    def has(self, canonical: str) -> bool:
        return canonical in self._index

    def get(self, row: Sequence[str], canonical: str) -> str:
        index = self._index.get(canonical)
        if index is None or index >= len(row):
            return ""
        return row[index].strip()

    def picker(self, canonicals: Sequence[str]) -> Picker:
        """A function returning the stripped values of ``canonicals`` from a row, in order.

        One C-level ``itemgetter`` call per row instead of a lookup per field: the NPPES file
        has millions of rows. Absent columns and the missing end of short rows read as "".
        """
        width = self.width
        positions = [self._index.get(name) for name in canonicals]
        complete = None not in positions
        # Absent columns point one past the header, where a copy of the row gets a "".
        getter = itemgetter(*(width if p is None else p for p in positions))
        single = len(canonicals) == 1

        def pick(row: list[str]) -> tuple[str, ...]:
            if not complete or len(row) < width:
                row = [*row[:width], *[""] * (width - len(row)), ""]
            values = getter(row)
            return (values.strip(),) if single else tuple(map(str.strip, values))

        return pick


def read_rows(
    path: Path,
    aliases: Mapping[str, Sequence[str]],
    *,
    comment: str | None = None,
    position: ReadPosition | None = None,
) -> tuple[Columns, Iterator[tuple[int, list[str]]]]:
    """The file's columns and an iterator of (data row number, 1-based, fields).

    Lines starting with ``comment`` (before the header or between rows) are skipped and do not
    count as rows. Blank lines are skipped but keep their number, so row numbers match what an
    operator sees when counting records after the header.
    """
    handle = open_text(path, position)
    lines: Iterator[str] = handle
    if comment is not None:
        lines = (line for line in handle if not line.startswith(comment))
    reader = csv.reader(lines, skipinitialspace=True)
    header = next(reader, None)
    if header is None:
        handle.close()
        raise ValueError(f"{path.name}: empty file, no header")
    columns = Columns(header, aliases)

    def rows() -> Iterator[tuple[int, list[str]]]:
        with handle:
            for number, row in enumerate(reader, start=1):
                if row:
                    yield number, row

    return columns, rows()


@lru_cache(maxsize=65536)  # NPPES dates repeat: a cache hit is a fraction of a parse
def parse_date(value: str) -> date | None:
    """MM/DD/YYYY, M/D/YY or ISO YYYY-MM-DD; None for empty; ValueError for anything else.

    Hand-rolled because ``strptime`` was a tenth of the NPPES load time. Two-digit years follow
    ``strptime``'s ``%y``: 69-99 are 19xx, 00-68 are 20xx.
    """
    if not value:
        return None
    parts = value.split("/")
    if len(parts) == 3 and all(p.isdigit() and p.isascii() for p in parts):
        month, day, year = parts
        if len(year) == 2:
            century = 1900 if int(year) >= 69 else 2000
            return date(century + int(year), int(month), int(day))
        if len(year) == 4 and len(month) <= 2 and len(day) <= 2:
            return date(int(year), int(month), int(day))
    elif len(value) == 10 and value[4] == "-" and value[7] == "-":
        return date.fromisoformat(value)
    raise ValueError(f"unrecognised date {value!r}")
