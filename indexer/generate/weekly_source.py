"""The weekly generator's reading of its source (indexer.generate.weekly): one pass keeping
uniform samples of active rows and of deactivated NPIs, and the row layout."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from operator import itemgetter
from pathlib import Path
from typing import Generic, TypeVar

from indexer.generate.nppes import ADDRESS_COLUMNS, SEPARATOR
from indexer.sources.csvfiles import parse_date
from indexer.sources.nppes import NppesRecord, column, read_nppes_rows

_T = TypeVar("_T")
_FRESH_PREFIX = "29"


class Reservoir(Generic[_T]):
    """A uniform random sample of ``size`` items of a stream of unknown length (Vitter's
    algorithm R); the caller builds an item only when it is kept."""

    def __init__(self, size: int, rng: random.Random) -> None:
        self.size = size
        self.items: list[_T] = []
        self.seen = 0
        self._rng = rng

    def slot(self) -> int | None:
        """Where the stream's next item goes in ``items``, or None when it is not kept."""
        self.seen += 1
        if self.seen <= self.size:
            return self.seen - 1
        slot = self._rng.randrange(self.seen)
        return slot if slot < self.size else None

    def put(self, slot: int, item: _T) -> None:
        if slot == len(self.items):
            self.items.append(item)
        else:
            self.items[slot] = item


class Layout:
    """Where the fields read or written here sit in the source's header."""

    def __init__(self, header: Sequence[str]) -> None:
        position = {name: index for index, name in enumerate(header)}

        def at(name: str) -> int:
            if name not in position:
                raise ValueError(f"not an NPPES npidata_pfile: no {name!r} column")
            return position[name]

        self.width = len(header)
        self.npi = at(column("npi"))
        self.entity = at(column("entity"))
        self.last = at(column("last"))
        self.org = at(column("org_name"))
        self.phone = at(column("phone"))
        self.taxonomy = at(column("tax1"))
        self.address = tuple(position[name] for name in ADDRESS_COLUMNS if name in position)
        self.enumerated = at(column("enumerated"))
        self.updated = at(column("updated"))
        self.deactivated = at(column("deactivated"))
        self.reactivated = at(column("reactivated"))
        self.reason = position.get(column("deactivation_reason"))
        self.dates = tuple(index for name, index in position.items() if name.endswith(" Date"))

    def fields(self, raw: list[str]) -> list[str]:
        return [*raw[: self.width], *[""] * (self.width - len(raw))]


def parsed_date(text: str) -> date | None:
    """The date in a field's text; None when empty or unreadable (the reader judges rows)."""
    try:
        return parse_date(text.strip())
    except ValueError:
        return None


def date_at(raw: list[str], index: int) -> date | None:
    return parsed_date(raw[index]) if index < len(raw) else None


def mdy(day: date) -> str:
    return f"{day:%m/%d/%Y}"


@dataclass(frozen=True, slots=True)
class ActiveRow:
    fields: str  # joined by SEPARATOR
    updated: date | None
    floor: date | None  # its latest enumeration, deactivation or reactivation date


@dataclass
class Source:
    header: list[str]
    layout: Layout
    active: list[ActiveRow]  # a random sample, shuffled
    deactivated: list[tuple[str, date]]  # a random sample of deactivated NPIs, with the date
    active_rows: int
    deactivated_rows: int
    latest: date | None  # of every date in the file
    fresh_range_npis: set[str]  # the source's NPIs in the range new NPIs come from


def read_source(source: Path, rng: random.Random, active: int, deactivated: int) -> Source:
    fresh_range: set[str] = set()

    def note_fresh_npi(file: str, row: int, npi: str, reason: str) -> None:
        if npi.startswith(_FRESH_PREFIX):  # a rejected row's NPI is taken all the same
            fresh_range.add(npi)

    columns, rows = read_nppes_rows(source, note_fresh_npi)
    layout = Layout(columns.header)
    kept = Reservoir[ActiveRow](active, rng)
    gone = Reservoir[tuple[str, date]](deactivated, rng)
    dates = itemgetter(*layout.dates)
    # Every distinct date text, parsed once at the end: a set insert per field is cheaper than
    # a parse per field on 9M rows.
    date_texts: set[str] = set()
    for raw, classified in rows:
        if classified.npi.startswith(_FRESH_PREFIX):
            fresh_range.add(classified.npi)
        date_texts.update(dates(raw if len(raw) >= layout.width else layout.fields(raw)))
        if isinstance(classified, NppesRecord):
            slot = kept.slot()
            if slot is not None:
                own = [date_at(raw, i) for i in (layout.enumerated, layout.deactivated)]
                own.append(date_at(raw, layout.reactivated))
                floor = max((day for day in own if day is not None), default=None)
                joined = SEPARATOR.join(layout.fields(raw))
                kept.put(slot, ActiveRow(joined, date_at(raw, layout.updated), floor))
        elif (on := date_at(raw, layout.deactivated)) is not None:
            slot = gone.slot()
            if slot is not None:
                gone.put(slot, (classified.npi, on))
    if not kept.items:
        raise ValueError(f"{source.name}: no active NPPES rows to sample")
    rng.shuffle(kept.items)
    return Source(
        header=columns.header,
        layout=layout,
        active=kept.items,
        deactivated=gone.items,
        active_rows=kept.seen,
        deactivated_rows=gone.seen,
        latest=max(filter(None, map(parsed_date, date_texts)), default=None),
        fresh_range_npis=fresh_range,
    )
