"""The rows of each kind of a weekly file (indexer.generate.weekly): changed rows and their
value swaps, stale dates, new, deactivated and reactivated rows, written as CMS writes them."""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import date, timedelta
from typing import TypeVar

from core.npi import luhn_check_digit, with_check_digit
from indexer.generate.nppes import SEPARATOR
from indexer.generate.weekly_source import ActiveRow, Layout, Source, date_at, mdy

_T = TypeVar("_T")
FRESH_PAYLOAD = 299_999_999  # first nine digits of the first new NPI; later ones count down
_STALE_DAYS = (30, 365)
_ANOTHER_CHANGE = 0.25  # chance that a changed row gets one more change
_CHANGES = ("address", "phone", "name", "taxonomy")
_TRIES = 20  # donors drawn to find a value that differs from the row's


class Changer:
    """Real changes to a row: values of other sampled rows of its entity type, each different
    from the row's own."""

    def __init__(self, layout: Layout, rows: Iterable[list[str]], rng: random.Random) -> None:
        self._rng = rng
        self._entity = layout.entity
        self._columns: dict[tuple[str, str], tuple[int, ...]] = {}
        for entity, name in (("1", layout.last), ("2", layout.org)):
            self._columns[("address", entity)] = layout.address
            self._columns[("phone", entity)] = (layout.phone,)
            self._columns[("name", entity)] = (name,)
            self._columns[("taxonomy", entity)] = (layout.taxonomy,)
        self._values: dict[tuple[str, str], list[tuple[str, ...]]] = {
            key: [] for key in self._columns
        }
        for row in rows:
            for kind in _CHANGES:
                key = (kind, row[layout.entity])
                value = tuple(row[index] for index in self._columns[key])
                if any(value):
                    self._values[key].append(value)

    def change(self, row: list[str]) -> bool:
        """One change to ``row``, then each further one by chance; False when none was
        possible (no donor with a different value)."""
        changed = False
        for kind in self._rng.sample(_CHANGES, len(_CHANGES)):
            if changed and self._rng.random() >= _ANOTHER_CHANGE:
                break
            changed = self._replace(kind, row) or changed
        return changed

    def _replace(self, kind: str, row: list[str]) -> bool:
        key = (kind, row[self._entity])
        columns, values = self._columns[key], self._values[key]
        current = [row[index].strip() for index in columns]
        for _ in range(_TRIES if values else 0):
            value = self._rng.choice(values)
            if [v.strip() for v in value] != current:
                for index, new in zip(columns, value, strict=True):
                    row[index] = new
                return True
        return False


def _stale_date(active: ActiveRow, rng: random.Random) -> date | None:
    """A Last Update Date before the row's own (and not before its other dates), or None when
    the row has no room for one."""
    if active.updated is None:
        return None
    room = (active.updated - active.floor).days if active.floor else _STALE_DAYS[1]
    if room < 1:
        return None
    low, high = min(_STALE_DAYS[0], room), min(_STALE_DAYS[1], room)
    return active.updated - timedelta(days=rng.randint(low, high))


class RowWriter:
    """Builds the update rows of one week, each kept as one joined string until written."""

    def __init__(self, source: Source, week: date, rng: random.Random) -> None:
        self._source, self._at, self._rng = source, source.layout, rng
        self._week = mdy(week)
        self.rows: list[str] = []
        self._payload = FRESH_PAYLOAD

    def add(self, row: list[str]) -> None:
        self.rows.append(SEPARATOR.join(row))

    def content(self) -> list[str]:
        """The fields of a random sampled active row, its deactivation dates cleared."""
        row = self._rng.choice(self._source.active).fields.split(SEPARATOR)
        for index in (self._at.reason, self._at.deactivated, self._at.reactivated):
            if index is not None:
                row[index] = ""
        return row

    def fresh_payload(self) -> str:
        while True:
            payload = str(self._payload)
            self._payload -= 1
            if with_check_digit(payload) not in self._source.fresh_range_npis:
                return payload

    def changed(self, active: ActiveRow, changer: Changer, *, stale: bool) -> str | None:
        """The NPI of a changed (or stale) row written, None when the row could not be."""
        day = _stale_date(active, self._rng) if stale else None
        row = active.fields.split(SEPARATOR)
        if (stale and day is None) or not changer.change(row):
            return None
        row[self._at.updated] = mdy(day) if day else self._week
        self.add(row)
        return row[self._at.npi]

    def deactivated(self, active: ActiveRow) -> str:
        row = [""] * self._at.width
        npi = row[self._at.npi] = active.fields.split(SEPARATOR)[self._at.npi]
        row[self._at.deactivated] = self._week
        self.add(row)
        return npi

    def new(self) -> str:
        row = self.content()
        npi = row[self._at.npi] = with_check_digit(self.fresh_payload())
        row[self._at.enumerated] = row[self._at.updated] = self._week
        self.add(row)
        return npi

    def reactivated(self, npi: str, deactivated_on: date) -> str:
        row = self.content()
        row[self._at.npi] = npi
        enumerated = date_at(row, self._at.enumerated)
        if enumerated is not None and enumerated > deactivated_on:
            row[self._at.enumerated] = mdy(deactivated_on)  # enumerated before deactivated
        row[self._at.deactivated] = mdy(deactivated_on)
        row[self._at.reactivated] = row[self._at.updated] = self._week
        self.add(row)
        return npi

    def invalid(self) -> str:
        payload = self.fresh_payload()
        wrong = (luhn_check_digit("80840" + payload) + self._rng.randint(1, 9)) % 10
        row = self.content()
        npi = row[self._at.npi] = f"{payload}{wrong}"
        row[self._at.updated] = self._week
        self.add(row)
        return npi
