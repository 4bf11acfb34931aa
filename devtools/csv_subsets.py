"""Subsets of CSV files written back in their source's own shape (line ending, quoting), read
through the indexer's own decoding (``indexer/sources/csvfiles.py``: gzip by magic number, UTF-8
with its Latin-1 fallback), so the bundled sample reads exactly like the raw files it was cut
from. Written as UTF-8, which the indexer reads back unchanged."""

from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from indexer.sources.csvfiles import open_binary, open_text

Row = list[str]


def line_ending(path: Path) -> str:
    """The line terminator of the file's first line, reused when writing its subset."""
    with open_binary(path) as fh:
        return "\r\n" if fh.readline().endswith(b"\r\n") else "\n"


@contextmanager
def read_csv(path: Path) -> Iterator[Iterator[Row]]:
    """Yield a csv.reader over a plain or gzipped file, fields exactly as written (no
    ``skipinitialspace``: the 2021 DAC's ", " separators must survive the round trip)."""
    with open_text(path) as text:
        yield csv.reader(text)


def write_csv(path: Path, newline: str, rows: Iterable[Row]) -> None:
    """Write rows quoting only where needed (csv.QUOTE_MINIMAL), with the source's line ending."""
    with path.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh, quoting=csv.QUOTE_MINIMAL, lineterminator=newline).writerows(rows)


def write_gzip_csv(path: Path, newline: str, rows: Iterable[Row]) -> None:
    """Write rows with every field quoted (as CMS does) into a reproducible gzip file."""
    with (
        path.open("wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as gz,
        io.TextIOWrapper(gz, encoding="utf-8", newline="") as text,
    ):
        csv.writer(text, quoting=csv.QUOTE_ALL, lineterminator=newline).writerows(rows)


def column_index(header: Row, name: str) -> int:
    """Index of a column by name, ignoring surrounding spaces (the 2021 DAC uses ', ')."""
    stripped = [h.strip() for h in header]
    return stripped.index(name)
