"""The garbage collector while a job writes millions of documents (a load, an update)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def batch_gc() -> Iterator[None]:
    """Collect cycles rarely while loading: the pipeline makes garbage at a furious rate but no
    reference cycles, and with default thresholds the collector rescanned the side tables
    (ZIP table, DAC) thousands of times, a third of the load's time. Restored afterwards."""
    thresholds = gc.get_threshold()
    gc.freeze()  # what exists now (side tables, modules) is never garbage during the load
    gc.set_threshold(100_000, 50, 1000)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
