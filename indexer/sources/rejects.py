"""How every reader reports what it cannot use: it calls its ``reject(source, row, npi, reason)``
and reads on. ``source`` is the file's name, ``row`` the 1-based data row (or line) in it,
``npi`` what the row says, if anything, and ``reason`` a short code the report counts by.

A reader never decides what a rejection costs: the job that passed ``reject`` does (a load
writes it to the reject file, indexer.write.rejects; a job counting rows read counts it as
one, indexer.write.screen; a generator ignores it).
"""

from __future__ import annotations

from collections.abc import Callable

Reject = Callable[[str, int, str, str], None]  # (source, row, npi, reason)


def ignore_rejects(source: str, row: int, npi: str, reason: str) -> None:
    """The ``Reject`` of a job that wants only the usable rows (the generators)."""
