"""The session's read-only loads made once per run, not once per worker: under ``-n N`` the first
worker that asks for one loads it and records what it loaded (the index names and the report,
pickled) in a folder the run's controller made; the others wait for that record and read it. The
loads are write-blocked, so sharing them is safe; the controller drops them once every worker is
done (``end_of_run``). A run of one process loads and drops each itself, as before.

The controller hands the folder to its workers in the environment they inherit
(``SHARED_FOLDER``), set before pytest-xdist starts them (tests.conftest.pytest_sessionstart)."""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from elasticsearch import AsyncElasticsearch, Elasticsearch
from filelock import FileLock

from core.index_contract import IndexNames

SHARED_FOLDER = "PD_TEST_SHARED_LOADS"
_PREFIX = "test-shared"
T = TypeVar("T")


def start_of_run() -> None:
    """The controller's: the folder its workers record their shared loads in."""
    os.environ[SHARED_FOLDER] = tempfile.mkdtemp(prefix="pd-shared-loads-")


def end_of_run(es_url: str) -> None:
    """The controller's, every worker done: the shared loads dropped, their records removed."""
    folder = os.environ.pop(SHARED_FOLDER, None)
    if folder is None:
        return
    with Elasticsearch(es_url) as es:
        es.indices.delete(**_every_index(_prefix(Path(folder))))
    shutil.rmtree(folder, ignore_errors=True)


async def drop(es: AsyncElasticsearch, names: IndexNames) -> None:
    """Every index under ``names``' prefix removed (none there is no error)."""
    await es.indices.delete(**_every_index(names.prefix))


def _every_index(prefix: str) -> dict[str, Any]:
    return {"index": f"{prefix}-*", "ignore_unavailable": True, "allow_no_indices": True}


def _prefix(folder: Path) -> str:
    return f"{_PREFIX}-{folder.name.rsplit('-', 1)[-1].lower()}"


@asynccontextmanager
async def once_per_run(
    es: AsyncElasticsearch,
    stem: str,
    make: Callable[[IndexNames], Awaitable[T]],
) -> AsyncIterator[T]:
    """What ``make`` loads under index names of its own: made by the first worker that asks
    and read by the others; in a run of one process made here and dropped after."""
    folder = os.environ.get(SHARED_FOLDER)
    if folder is None:
        names = IndexNames(f"test-{stem}-{os.urandom(4).hex()}")
        try:
            yield await make(names)
        finally:
            await drop(es, names)
        return
    record = Path(folder) / f"{stem}.pickle"
    with FileLock(Path(folder) / f"{stem}.lock"):  # a worker that fails leaves none: the next tries
        if not record.exists():
            made = await make(IndexNames(f"{_prefix(Path(folder))}-{stem}"))
            record.write_bytes(pickle.dumps(made))
    yield pickle.loads(record.read_bytes())
