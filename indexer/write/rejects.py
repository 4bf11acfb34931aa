"""The reject file: one CSV line per source row that was not indexed, with where and why."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path
from types import TracebackType
from typing import IO

FIELDS = ("source", "row", "npi", "reason")


class Rejects:
    """Counts rejected rows per (source file, reason) and writes each one to ``path``.

    The file is created on the first rejection only, so a clean load leaves nothing behind.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.counts: Counter[tuple[str, str]] = Counter()
        self._handle: IO[str] | None = None
        self._writer: csv.DictWriter[str] | None = None

    def add(self, source: str, row: int | None, npi: str, reason: str) -> None:
        self.counts[source, reason] += 1
        if self._writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = open(self.path, "w", newline="", encoding="utf-8")  # noqa: SIM115
            self._writer = csv.DictWriter(self._handle, FIELDS)
            self._writer.writeheader()
        self._writer.writerow({"source": source, "row": row or "", "npi": npi, "reason": reason})

    @property
    def written(self) -> bool:
        return self._handle is not None

    def __enter__(self) -> Rejects:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._handle is not None:
            self._handle.close()
