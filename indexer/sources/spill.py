"""Keyed records kept on disk instead of in memory, so reading a national payer's export holds
memory flat: one SQLite file in a temporary directory per reading, a table per kind of record,
values pickled (strings kept as they are), or marshalled as rows of plain values when the kind
gives its ``RowCodec``. The file goes when its ``Spill`` is closed or
collected, at the latest when the job's process exits.

A value read back is a copy: who changes it writes it back (``spilled[key] = value``).
"""

from __future__ import annotations

import marshal
import pickle
import sqlite3
import tempfile
import weakref
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

V = TypeVar("V")
_PAGE_CACHE_KIB = 65_536  # SQLite's page cache: what the file holds in memory at most


@dataclass(frozen=True)
class RowCodec(Generic[V]):
    """A record as a tuple of plain values and back: marshalled, cheaper than a pickle."""

    to_row: Callable[[V], tuple[Any, ...]]
    from_row: Callable[[tuple[Any, ...]], V]


class Spill:
    """The file; ``table`` opens a record kind in it."""

    def __init__(self) -> None:
        self._directory = tempfile.TemporaryDirectory(prefix="plan-net-")
        # A scratch file: nothing to recover after a crash, so no journal and no syncing.
        # Read in a worker thread (the jobs' to_thread), then used by the event loop's: one
        # thread at a time, never both.
        self._db = sqlite3.connect(
            Path(self._directory.name) / "export.sqlite",
            isolation_level=None,
            check_same_thread=False,
        )
        for pragma in (
            "journal_mode=OFF",
            "synchronous=OFF",
            "locking_mode=EXCLUSIVE",  # no file lock taken and released per statement
            f"cache_size=-{_PAGE_CACHE_KIB}",
        ):
            self._db.execute(f"PRAGMA {pragma}")
        # One transaction for the file's life: no statement waits for its writes to reach the
        # file; SQLite writes pages out when its cache is full.
        self._db.execute("BEGIN")
        self._tables = 0
        self._closed = weakref.finalize(self, _close, self._db, self._directory)

    def table(
        self, kind: type[V], *, ordered: bool = True, codec: RowCodec[V] | None = None
    ) -> SpilledMap[V]:
        """A new record kind holding ``kind`` values (strings are kept as they are, others
        marshalled through ``codec`` when given, else pickled). ``ordered``: iterated in
        insertion order, as a dict is; otherwise in key order, and each read or write is one
        B-tree walk instead of two (key index, then row)."""
        self._tables += 1
        table = f"t{self._tables}"
        return SpilledMap(self, self._db, table, plain=kind is str, ordered=ordered, codec=codec)

    def rows(self) -> SpilledRows:
        """A new kind of rows appended under a key, read back per key in the order appended."""
        self._tables += 1
        return SpilledRows(self, self._db, f"t{self._tables}")

    def close(self) -> None:
        self._closed()


def _close(db: sqlite3.Connection, directory: tempfile.TemporaryDirectory[str]) -> None:
    db.close()
    directory.cleanup()


class SpilledMap(MutableMapping[str, V], Generic[V]):
    """A dict on disk: keys in insertion order, or in key order when not ``ordered``."""

    def __init__(
        self,
        spill: Spill,
        db: sqlite3.Connection,
        table: str,
        *,
        plain: bool,
        ordered: bool,
        codec: RowCodec[V] | None = None,
    ) -> None:
        self._spill = spill  # the file lives as long as any of its tables
        self._db = db
        self._table = table
        self._plain = plain
        self._codec = codec
        # The position iteration pages by: the row id (insertion order), else the key itself.
        self._position = "rowid" if ordered else "key"
        layout = "" if ordered else " WITHOUT ROWID"
        db.execute(f"CREATE TABLE {table} (key TEXT PRIMARY KEY, value NOT NULL){layout}")

    def _encode(self, value: V) -> object:
        if self._plain:
            return value
        if self._codec is not None:
            return marshal.dumps(self._codec.to_row(value))
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)

    def _decode(self, stored: Any) -> V:
        # Our own file, written by this process.
        if self._plain:
            return cast(V, stored)
        if self._codec is not None:
            return self._codec.from_row(marshal.loads(stored))
        return cast(V, pickle.loads(stored))

    def __getitem__(self, key: str) -> V:
        row = self._db.execute(f"SELECT value FROM {self._table} WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        return self._decode(row[0])

    def __setitem__(self, key: str, value: V) -> None:
        # An upsert keeps the key's first place in the order, as a dict does.
        self._db.execute(
            f"INSERT INTO {self._table} (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, self._encode(value)),
        )

    def add(self, key: str, value: V) -> bool:
        """Store ``value`` unless ``key`` is there already; whether it was stored."""
        query = f"INSERT OR IGNORE INTO {self._table} (key, value) VALUES (?, ?)"
        return self._db.execute(query, (key, self._encode(value))).rowcount == 1

    def __delitem__(self, key: str) -> None:
        if self._db.execute(f"DELETE FROM {self._table} WHERE key = ?", (key,)).rowcount == 0:
            raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        query = f"SELECT 1 FROM {self._table} WHERE key = ?"
        return isinstance(key, str) and self._db.execute(query, (key,)).fetchone() is not None

    def __iter__(self) -> Iterator[str]:
        # Read in pages, so the caller may delete or rewrite keys while iterating.
        position = self._position
        query = (
            f"SELECT {position}, key FROM {self._table} "
            f"WHERE {position} > ? ORDER BY {position} LIMIT 1000"
        )
        last: int | str = 0 if position == "rowid" else ""
        while True:
            rows = self._db.execute(query, (last,)).fetchall()
            if not rows:
                return
            last = rows[-1][0]
            yield from (key for _, key in rows)

    def __len__(self) -> int:
        (count,) = self._db.execute(f"SELECT count(*) FROM {self._table}").fetchone()
        return int(count)


class SpilledRows:
    """Rows appended under a key: tuples of plain values (marshalled, not pickled), so adding
    one costs an insert, never a read and rewrite of what the key holds already."""

    def __init__(self, spill: Spill, db: sqlite3.Connection, table: str) -> None:
        self._spill = spill  # the file lives as long as any of its tables
        self._db = db
        self._table = table
        db.execute(f"CREATE TABLE {table} (key TEXT NOT NULL, value BLOB NOT NULL)")
        db.execute(f"CREATE INDEX {table}_key ON {table} (key)")

    def append(self, key: str, row: tuple[Any, ...]) -> None:
        self._db.execute(
            f"INSERT INTO {self._table} (key, value) VALUES (?, ?)", (key, marshal.dumps(row))
        )

    def get(self, key: str) -> list[tuple[Any, ...]]:
        """The rows under ``key``, in the order they were appended."""
        query = f"SELECT value FROM {self._table} WHERE key = ? ORDER BY rowid"
        # Our own file, written by this process.
        return [marshal.loads(value) for (value,) in self._db.execute(query, (key,))]
