"""Every record a job reads is accepted or rejected, and counted either way: the one rule for the
load and the updates (the report's ``rows_read`` and ``rejected``, the reject file's lines)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from indexer.sources.nppes import Deactivated, NppesRecord, NppesRow
from indexer.write.rejects import Rejects

_T = TypeVar("_T")


class Tally(Protocol):
    rows_read: int
    rejected: Counter[str]


@dataclass
class FileTally:
    """The rows of one file, for a job whose report counts them by file only (the load's
    coverage files: the reject file's counts say why)."""

    rows_read: int = 0
    rejected: Counter[str] = field(default_factory=Counter)


class Seen(Protocol):
    def add(self, key: str) -> bool:
        """True the first time a key is added."""
        ...


class KeySet:
    """``Seen`` for any keys (NPIs have a compact set of their own: indexer.assembly.npiset)."""

    def __init__(self) -> None:
        self._keys: set[str] = set()

    def add(self, key: str) -> bool:
        before = len(self._keys)
        self._keys.add(key)
        return len(self._keys) > before


class Screen(Generic[_T]):
    """Counts the records of one source file, rejecting those its reader could not use and the
    repeats of a key already seen."""

    def __init__(self, tally: Tally, rejects: Rejects, source: str) -> None:
        self._tally = tally
        self._rejects = rejects
        self._source = source

    def reject(self, row: int | None, npi: str, reason: str) -> None:
        self._tally.rejected[reason] += 1
        self._rejects.add(self._source, row, npi, reason)

    def reader_rejected(self, source: str, row: int, npi: str, reason: str) -> None:
        """The ``Reject`` (indexer.sources.rejects) to give the readers: a row read, rejected."""
        self._tally.rows_read += 1
        self._tally.rejected[reason] += 1
        self._rejects.add(source, row, npi, reason)

    def accepted(
        self,
        records: Iterable[_T],
        *,
        seen: Seen,
        key: Callable[[_T], str],
        repeat: str,
        where: Callable[[_T], tuple[int | None, str]],
    ) -> Iterator[_T]:
        """The usable records, each counted as read; a record whose ``key`` was ``seen`` is
        rejected as ``repeat`` at ``where`` (its row and NPI). Give the reader of ``records``
        ``reader_rejected``, so the rows it rejects are counted too."""
        for record in records:
            self._tally.rows_read += 1
            if not seen.add(key(record)):
                self.reject(*where(record), repeat)
            else:
                yield record


def _npi(row: NppesRecord | Deactivated) -> str:
    return row.npi


def _row_and_npi(row: NppesRecord | Deactivated) -> tuple[int, str]:
    return row.row_number, row.npi


def each_npi_once(
    screen: Screen[NppesRecord | Deactivated], rows: Iterable[NppesRow], seen: Seen
) -> Iterator[NppesRecord | Deactivated]:
    """The NPPES rows a job uses: an NPI's first row (a repeat is rejected as duplicate_npi)."""
    return screen.accepted(rows, seen=seen, key=_npi, repeat="duplicate_npi", where=_row_and_npi)
