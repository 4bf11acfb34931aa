"""The documents Elasticsearch refused during one job (a load, an update): each is a line of the
reject file (``bulk_error: <reason>``), and more of them than the job allows fail it."""

from __future__ import annotations

from collections import Counter

from indexer.write.bulk import Origin
from indexer.write.rejects import Rejects

BULK_ERROR = "bulk_error"


class BulkErrors:
    """Counts and records refused documents against ``allowed``. ``rows``: a report's rejected
    rows by reason, when every refusal recorded is one row refused (the updates; a load counts
    a provider's two documents as one row itself)."""

    def __init__(self, rejects: Rejects, allowed: int, rows: Counter[str] | None = None) -> None:
        self.allowed = allowed
        self.count = 0
        self._rejects = rejects
        self._rows = rows

    def refused(self, origin: Origin, reason: str) -> None:
        self.count += 1
        if self._rows is not None:
            self._rows[BULK_ERROR] += 1
        self._rejects.add(origin.source, origin.row, origin.npi, f"{BULK_ERROR}: {reason}")

    @property
    def too_many(self) -> bool:
        return self.count > self.allowed
