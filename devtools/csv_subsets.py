"""Subsets of CSV files written back in their source's own format (encoding, line ending,
quoting), so the bundled sample reads exactly like the raw files it was cut from."""

from __future__ import annotations

import codecs
import csv
import gzip
import io
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from indexer.sources.csvfiles import open_binary

Row = list[str]
CHUNK = 1 << 20


@dataclass(frozen=True)
class TextFormat:
    """Encoding and line terminator of a source file, reused when writing its subset."""

    encoding: str
    newline: str


def _open_text(path: Path, encoding: str) -> TextIO:
    """The indexer's reader (gzip by magic number) with the file's own encoding, so subsets are
    written back byte for byte in the source's format."""
    return io.TextIOWrapper(open_binary(path), encoding=encoding, newline="")


def detect_format(path: Path) -> TextFormat:
    """UTF-8 if the whole file decodes as UTF-8, else Latin-1; newline of the first line."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    encoding = "utf-8"
    with open_binary(path) as fh:
        first = fh.readline()
        try:
            decoder.decode(first)
            while chunk := fh.read(CHUNK):
                decoder.decode(chunk)
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            encoding = "latin-1"
    return TextFormat(encoding, "\r\n" if first.endswith(b"\r\n") else "\n")


@contextmanager
def read_csv(path: Path, fmt: TextFormat) -> Iterator[Iterator[Row]]:
    """Yield a csv.reader over a plain or gzipped file."""
    with _open_text(path, fmt.encoding) as text:
        yield csv.reader(text)


def write_csv(path: Path, fmt: TextFormat, rows: Iterable[Row]) -> None:
    """Write rows quoting only where needed (csv.QUOTE_MINIMAL), in the source format."""
    with path.open("w", encoding=fmt.encoding, newline="") as fh:
        csv.writer(fh, quoting=csv.QUOTE_MINIMAL, lineterminator=fmt.newline).writerows(rows)


def write_gzip_csv(path: Path, fmt: TextFormat, rows: Iterable[Row]) -> None:
    """Write rows with every field quoted (as CMS does) into a reproducible gzip file."""
    with (
        path.open("wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as gz,
        io.TextIOWrapper(gz, encoding=fmt.encoding, newline="") as text,
    ):
        csv.writer(text, quoting=csv.QUOTE_ALL, lineterminator=fmt.newline).writerows(rows)


def column_index(header: Row, name: str) -> int:
    """Index of a column by name, ignoring surrounding spaces (the 2021 DAC uses ', ')."""
    stripped = [h.strip() for h in header]
    return stripped.index(name)
