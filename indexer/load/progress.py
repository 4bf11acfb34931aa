"""Progress of the NPPES pass, the long part of a load: a bar on a terminal, and for logs a line
every ``LOG_EVERY_S`` seconds, each with rows read, rate, share of the file and an ETA.

The share is of the file's bytes on disk (compressed ones for gzip), so the ETA holds from the
first minute without knowing the row count in advance.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TextIO

from tqdm import tqdm

from indexer.sources.csvfiles import ReadPosition

LOG_EVERY_S = 30.0
CHECK_EVERY_ROWS = 4096  # the clock is read once per this many rows


def eta_text(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


class LoadProgress:
    def __init__(
        self, path: Path, position: ReadPosition, *, bar: bool, out: TextIO = sys.stderr
    ) -> None:
        self._size = max(path.stat().st_size, 1)
        self._name = path.name
        self._position = position
        self._out = out
        self._started = self._last_log = time.monotonic()
        self._bar = (
            tqdm(total=self._size, unit="B", unit_scale=True, desc=path.name, file=out)
            if bar
            else None
        )

    def rows(self, count: int) -> None:
        """Called with the running row count; cheap except every CHECK_EVERY_ROWS rows."""
        if count % CHECK_EVERY_ROWS:
            return
        done = self._position.bytes_read()
        if self._bar is not None:
            self._bar.update(done - self._bar.n)
            self._bar.set_postfix_str(f"{count:,} rows", refresh=False)
            return
        now = time.monotonic()
        if now - self._last_log >= LOG_EVERY_S:
            self._last_log = now
            print(self.line(count, done, now - self._started), file=self._out, flush=True)

    def line(self, count: int, done: int, elapsed: float) -> str:
        share = done / self._size
        eta = elapsed * (1 - share) / share if share else float("inf")
        return (
            f"{self._name}: {count:,} rows, {count / max(elapsed, 1e-9):,.0f} rows/s,"
            f" {share:.1%} of the file, ETA {eta_text(eta) if share else '?'}"
        )

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
