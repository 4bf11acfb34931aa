"""``provider-indexer generate N``: an NPPES-format file of N NPIs for scale tests, made by
resampling real rows, never invented ones.

Each active output row is a real active row of the source file with a fresh NPI (valid check
digit, in the 2xxxxxxxxx range CMS has not issued yet, so it cannot collide with a real NPI), an
individual's first name (with its sex code) and last name, or an organisation's name, taken from
other real rows, and the practice address block (lines, city, state, ZIP, phones) of another real
row. Active rows that were deactivated, then reactivated (both dates set) are resampled with the
others, dates kept, so they keep the source's share.

Deactivated NPIs keep their share too: round(N x the source's deactivated rows / its usable rows)
of the N rows are copies of the source's deactivated rows as CMS writes them (the NPI and the
deactivation date, and whatever else the source row holds: the public file leaves the rest,
reason code included, empty), each under a fresh NPI like any other row. They are spread
uniformly through the output (selection sampling: the k of N positions drawn one row at a time,
no list of positions), so they come interleaved in NPI order as in the real file.

Deterministic for a given source, N and seed. Memory holds the source rows only (one string
per row), whatever N is; the output is streamed (gzip when the name ends in ``.gz``).
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import random
import resource
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar, cast

from core.npi import with_check_digit
from indexer.sources.nppes import (
    ADDRESS_FIELDS,
    COLUMNS,
    Deactivated,
    column,
    read_nppes_rows,
)
from indexer.sources.rejects import ignore_rejects

_T = TypeVar("_T")
FIRST_PAYLOAD = 200_000_000  # first nine digits of the first generated NPI
SEPARATOR = "\x1f"  # ASCII unit separator: never in CSV text, joins a row's fields in memory
ADDRESS_COLUMNS = tuple(column(field) for field in ADDRESS_FIELDS)


@dataclass(frozen=True)
class GenerateStats:
    rows: int  # every row written: active and deactivated
    deactivated: int  # rows of deactivated NPIs among them
    source_rows: int  # the source's usable rows resampled: active and deactivated
    out: Path
    bytes: int
    elapsed_s: float
    peak_rss_mb: float

    def __str__(self) -> str:
        rate = self.rows / self.elapsed_s if self.elapsed_s else 0.0
        return (
            f"wrote {self.rows:,} NPIs ({self.rows - self.deactivated:,} active providers, "
            f"{self.deactivated:,} deactivated) to {self.out} ({self.bytes / 1e6:,.1f} MB) from "
            f"{self.source_rows:,} real rows in {self.elapsed_s:.1f} s ({rate:,.0f} rows/s), "
            f"peak RSS {self.peak_rss_mb:,.0f} MB"
        )


class _Pool:
    """The real rows of the source file, active and deactivated, and the values that get swapped
    among the active ones."""

    def __init__(self, source: Path) -> None:
        columns, rows = read_nppes_rows(source, ignore_rejects)
        self.header = columns.header
        position = {name: index for index, name in enumerate(self.header)}
        self.npi = position[column("npi")]
        self.entity = position[column("entity")]
        self.first = position[column("first")]
        self.last = position[column("last")]
        self.org = position[column("org_name")]
        self.sex = next(position[n] for n in COLUMNS["sex"] if n in position)
        self.address = [position[name] for name in ADDRESS_COLUMNS if name in position]
        self.rows: list[str] = []
        self.deactivated: list[str] = []
        self.first_names: list[tuple[str, str]] = []
        self.last_names: list[str] = []
        self.org_names: list[str] = []
        self.addresses: list[tuple[str, ...]] = []
        for raw, classified in rows:
            raw = [*raw[: len(self.header)], *[""] * (len(self.header) - len(raw))]
            if isinstance(classified, Deactivated):
                self.deactivated.append(SEPARATOR.join(raw))
                continue
            self.rows.append(SEPARATOR.join(raw))
            if classified.entity_type == "1":
                self.first_names.append((raw[self.first], raw[self.sex]))
                self.last_names.append(raw[self.last])
            else:
                self.org_names.append(raw[self.org])
            if classified.postal_code:
                self.addresses.append(tuple(raw[i] for i in self.address))
        if not self.rows:
            raise ValueError(f"{source.name}: no active NPPES rows to resample")

    @property
    def size(self) -> int:
        return len(self.rows) + len(self.deactivated)

    def deactivated_share(self, count: int) -> int:
        """How many of ``count`` rows are deactivated NPIs: the source's share, rounded."""
        return round(count * len(self.deactivated) / self.size)

    def deactivated_row(self, rng: random.Random, npi: str) -> list[str]:
        """A real deactivated row as the source writes it, under ``npi``."""
        row = _pick(rng, self.deactivated).split(SEPARATOR)
        row[self.npi] = npi
        return row

    def row(self, rng: random.Random, npi: str) -> list[str]:
        row = self.rows[rng.randrange(len(self.rows))].split(SEPARATOR)
        row[self.npi] = npi
        if row[self.entity] == "1":
            row[self.first], row[self.sex] = _pick(rng, self.first_names)
            row[self.last] = _pick(rng, self.last_names)
        elif self.org_names:
            row[self.org] = _pick(rng, self.org_names)
        if self.addresses:
            for index, value in zip(self.address, _pick(rng, self.addresses), strict=True):
                row[index] = value
        return row


def _pick(rng: random.Random, values: Sequence[_T]) -> _T:
    return values[rng.randrange(len(values))]


@contextlib.contextmanager
def open_out(path: Path, gzip_name: str | None) -> Iterator[IO[str]]:
    """Text output to ``path``; gzip when ``gzip_name`` (the name recorded in the header)."""
    with contextlib.ExitStack() as stack:
        handle: IO[bytes] = stack.enter_context(open(path, "wb"))
        if gzip_name is not None:
            # mtime=0 and a fixed name: the same input gives byte-identical output.
            compressed = gzip.GzipFile(gzip_name, "wb", compresslevel=1, fileobj=handle, mtime=0)
            handle = cast(IO[bytes], stack.enter_context(compressed))
        yield stack.enter_context(io.TextIOWrapper(handle, encoding="utf-8", newline=""))


def generate_nppes(source: Path, out: Path, count: int, *, seed: int = 1) -> GenerateStats:
    started = time.monotonic()
    pool = _Pool(source)
    rng = random.Random(seed)
    partial = out.with_name(out.name + ".partial")
    gzip_name = out.name.removesuffix(".gz") if out.name.endswith(".gz") else None
    with open_out(partial, gzip_name) as handle:
        # Like the CMS file: every field quoted, CRLF.
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
        writer.writerow(pool.header)
        deactivated = left = pool.deactivated_share(count)
        for number in range(count):
            npi = with_check_digit(str(FIRST_PAYLOAD + number))
            # Selection sampling (Knuth's algorithm S): exactly ``deactivated`` of the ``count``
            # positions, each set of positions equally likely, decided row by row.
            if left and rng.randrange(count - number) < left:
                left -= 1
                writer.writerow(pool.deactivated_row(rng, npi))
            else:
                writer.writerow(pool.row(rng, npi))
    partial.replace(out)
    return GenerateStats(
        rows=count,
        deactivated=deactivated,
        source_rows=pool.size,
        out=out,
        bytes=out.stat().st_size,
        elapsed_s=time.monotonic() - started,
        peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    )
