"""``generate_update``: an NPPES weekly incremental file made from the rows of any NPPES file, so
the updater's tests and benchmarks run on real rows, never hand-made ones.

Beside the full file, CMS publishes every week a file in the same ``npidata_pfile`` format (same
header, every field quoted, CRLF) holding only the NPIs created, changed, deactivated or
reactivated that week. This writes one for a week after the source (by default its latest date
plus 7 days, so every week-dated field is at least any date of the row it replaces), each NPI in
one kind only, the kinds interleaved:

- changed: an active row with one or more real changes, each value taken from another real row
  of the same entity type (practice address block, practice phone, last or legal business name,
  taxonomy code 1 with its slot's primary switch kept), and the week as its Last Update Date;
- new: an active row's content under a fresh NPI (valid check digit, first nine digits counting
  down from 299,999,999, skipping the source's: clear of ``generate``'s 200,000,000 upward),
  enumerated and updated that week;
- deactivated: an active NPI in the CMS deactivated shape (only the NPI and the date);
- reactivated: an NPI deactivated in the source, as a full active row (another row's content)
  reactivated that week; as many as the source has, when it has fewer than asked;
- stale: a changed row whose Last Update Date is 30 to 365 days before its source row's (never
  before the row's other dates): an updater must skip it;
- invalid: a row whose NPI has a wrong check digit.

The default mix (``UpdateCounts.week``) is an estimate. A weekly file holds ~25-30k rows, about
0.2 % of the ~9M NPIs; some 6-7k NPIs are enumerated a week nationally, so ~25 % are new; most of
the rest are changes (68 %); deactivations (5 %) and reactivations (1 %) are few. Stale rows (1 %)
are not a CMS figure but a check that the updater compares dates. Cross-check: the six weekly
files of January-February 2024, merged by NPI, hold 41 % new, 55 % changed, 3.1 % deactivated and
0.35 % reactivated NPIs (~9.5k new a week; merging counts an NPI changed in several weeks once).

Memory: one pass over the source keeps a uniform random sample (reservoir) of its active rows,
twice the rows asked for (the rows to change, the content of new rows, the donors of changed
values), and of its deactivated NPIs, so a 9M-row source costs what the sample does. Deterministic
for a given source, counts, seed and week.

About 500 lines: one job (a weekly file), with one small writer per row kind, the reservoir
read of the source and the value swaps kept together because they share the row layout.
"""

from __future__ import annotations

import csv
import random
import resource
import time
from collections.abc import Iterable, Sequence
from dataclasses import astuple, dataclass, fields
from datetime import date, timedelta
from operator import itemgetter
from pathlib import Path
from typing import Generic, TypeVar

from core.npi import luhn_check_digit, with_check_digit
from indexer.generate import ADDRESS_COLUMNS, SEPARATOR, open_out
from indexer.sources.csvfiles import parse_date
from indexer.sources.nppes import NppesRecord, Rejected, read_nppes, read_nppes_rows

_T = TypeVar("_T")
WEEKLY_SHARE = 0.002  # of all NPIs, in one weekly file
_SHARES = {"new": 25, "changed": 68, "deactivated": 5, "reactivated": 1, "stale": 1}  # percent
_AT_LEAST_ONE = ("changed", "new", "deactivated")
FRESH_PAYLOAD = 299_999_999  # first nine digits of the first new NPI; later ones count down
_FRESH_PREFIX = "29"
_STALE_DAYS = (30, 365)
_ANOTHER_CHANGE = 0.25  # chance that a changed row gets one more change
_CHANGES = ("address", "phone", "name", "taxonomy")
_TRIES = 20  # donors drawn to find a value that differs from the row's
_SAMPLE_MIN = 1_000  # active rows sampled at least, for the donors' variety


@dataclass(frozen=True)
class UpdateCounts:
    """Rows of each kind in an update file."""

    new: int
    changed: int
    deactivated: int
    reactivated: int
    stale: int
    invalid: int = 0

    def __post_init__(self) -> None:
        if min(astuple(self)) < 0:
            raise ValueError(f"negative row count in {self}")

    @property
    def total(self) -> int:
        return sum(astuple(self))

    @classmethod
    def week(cls, active_rows: int, rows: int | None = None) -> UpdateCounts:
        """The default mix (module docstring) of ``rows`` rows, by default 0.2 % of
        ``active_rows``; at least one each of changed, new and deactivated when ``rows`` allow."""
        if rows is None:
            rows = max(1, round(active_rows * WEEKLY_SHARE)) if active_rows > 0 else 0
        counts = {kind: rows * share // 100 for kind, share in _SHARES.items()}
        # Largest remainders get the rows the rounding down left over (ties in _SHARES order).
        by_remainder = sorted(_SHARES, key=lambda kind: -(rows * _SHARES[kind] % 100))
        for kind in by_remainder[: rows - sum(counts.values())]:
            counts[kind] += 1
        for kind in _AT_LEAST_ONE:
            largest = max(counts, key=counts.__getitem__)
            if counts[kind] == 0 and counts[largest] > 1:
                counts[largest] -= 1
                counts[kind] += 1
        return cls(**counts)


@dataclass(frozen=True)
class UpdateNpis:
    """The NPIs written, per kind."""

    new: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    deactivated: tuple[str, ...] = ()
    reactivated: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()
    invalid: tuple[str, ...] = ()

    def counts(self) -> UpdateCounts:
        return UpdateCounts(*(len(getattr(self, field.name)) for field in fields(self)))


@dataclass(frozen=True)
class UpdateStats:
    requested: UpdateCounts
    written: UpdateCounts
    npis: UpdateNpis
    week: date
    source_active: int
    source_deactivated: int
    out: Path
    bytes: int
    elapsed_s: float
    peak_rss_mb: float

    @property
    def rows(self) -> int:
        return self.written.total

    def shortfalls(self) -> list[str]:
        """One phrase per kind written fewer times than asked."""
        short = []
        for field in fields(UpdateCounts):
            asked, wrote = getattr(self.requested, field.name), getattr(self.written, field.name)
            if wrote < asked:
                short.append(f"{wrote:,} of {asked:,} {field.name}")
        if self.written.reactivated < self.requested.reactivated:
            short.append(f"the source has {self.source_deactivated:,} deactivated NPIs")
        return short

    def __str__(self) -> str:
        kinds = ", ".join(
            f"{getattr(self.written, field.name):,} {field.name}" for field in fields(UpdateCounts)
        )
        short = self.shortfalls()
        return (
            f"wrote {self.rows:,} update rows ({kinds}) for the week of {self.week.isoformat()} "
            f"to {self.out} ({self.bytes / 1e6:,.1f} MB) from {self.source_active:,} active "
            f"rows in {self.elapsed_s:.1f} s, peak RSS {self.peak_rss_mb:,.0f} MB"
            + (f"; short: {', '.join(short)}" if short else "")
        )


class _Reservoir(Generic[_T]):
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


class _Layout:
    """Where the fields read or written here sit in the source's header."""

    def __init__(self, header: Sequence[str]) -> None:
        position = {name: index for index, name in enumerate(header)}

        def at(name: str) -> int:
            if name not in position:
                raise ValueError(f"not an NPPES npidata_pfile: no {name!r} column")
            return position[name]

        self.width = len(header)
        self.npi = at("NPI")
        self.entity = at("Entity Type Code")
        self.last = at("Provider Last Name (Legal Name)")
        self.org = at("Provider Organization Name (Legal Business Name)")
        self.phone = at("Provider Business Practice Location Address Telephone Number")
        self.taxonomy = at("Healthcare Provider Taxonomy Code_1")
        self.address = tuple(position[name] for name in ADDRESS_COLUMNS if name in position)
        self.enumerated = at("Provider Enumeration Date")
        self.updated = at("Last Update Date")
        self.deactivated = at("NPI Deactivation Date")
        self.reactivated = at("NPI Reactivation Date")
        self.reason = position.get("NPI Deactivation Reason Code")
        self.dates = tuple(index for name, index in position.items() if name.endswith(" Date"))

    def fields(self, raw: list[str]) -> list[str]:
        return [*raw[: self.width], *[""] * (self.width - len(raw))]


def _parsed(text: str) -> date | None:
    """The date in a field's text; None when empty or unreadable (the reader judges rows)."""
    try:
        return parse_date(text.strip())
    except ValueError:
        return None


def _date(raw: list[str], index: int) -> date | None:
    return _parsed(raw[index]) if index < len(raw) else None


def _mdy(day: date) -> str:
    return f"{day:%m/%d/%Y}"


@dataclass(frozen=True, slots=True)
class _Active:
    fields: str  # joined by SEPARATOR
    updated: date | None
    floor: date | None  # its latest enumeration, deactivation or reactivation date


@dataclass
class _Source:
    header: list[str]
    layout: _Layout
    active: list[_Active]  # a random sample, shuffled
    deactivated: list[tuple[str, date]]  # a random sample of deactivated NPIs, with the date
    active_rows: int
    deactivated_rows: int
    latest: date | None  # of every date in the file
    fresh_range_npis: set[str]  # the source's NPIs in the range new NPIs come from


def _read(source: Path, rng: random.Random, active: int, deactivated: int) -> _Source:
    columns, rows = read_nppes_rows(source)
    layout = _Layout(columns.header)
    kept = _Reservoir[_Active](active, rng)
    gone = _Reservoir[tuple[str, date]](deactivated, rng)
    dates = itemgetter(*layout.dates)
    # Every distinct date text, parsed once at the end: a set insert per field is cheaper than
    # a parse per field on 9M rows.
    date_texts: set[str] = set()
    fresh_range: set[str] = set()
    for raw, classified in rows:
        if classified.npi.startswith(_FRESH_PREFIX):
            fresh_range.add(classified.npi)
        if isinstance(classified, Rejected):
            continue
        date_texts.update(dates(raw if len(raw) >= layout.width else layout.fields(raw)))
        if isinstance(classified, NppesRecord):
            slot = kept.slot()
            if slot is not None:
                own = [_date(raw, i) for i in (layout.enumerated, layout.deactivated)]
                own.append(_date(raw, layout.reactivated))
                floor = max((day for day in own if day is not None), default=None)
                joined = SEPARATOR.join(layout.fields(raw))
                kept.put(slot, _Active(joined, _date(raw, layout.updated), floor))
        elif (on := _date(raw, layout.deactivated)) is not None:
            slot = gone.slot()
            if slot is not None:
                gone.put(slot, (classified.npi, on))
    if not kept.items:
        raise ValueError(f"{source.name}: no active NPPES rows to sample")
    rng.shuffle(kept.items)
    return _Source(
        header=columns.header,
        layout=layout,
        active=kept.items,
        deactivated=gone.items,
        active_rows=kept.seen,
        deactivated_rows=gone.seen,
        latest=max(filter(None, map(_parsed, date_texts)), default=None),
        fresh_range_npis=fresh_range,
    )


class _Changer:
    """Real changes to a row: values of other sampled rows of its entity type, each different
    from the row's own."""

    def __init__(self, layout: _Layout, rows: Iterable[list[str]], rng: random.Random) -> None:
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


def _stale_date(active: _Active, rng: random.Random) -> date | None:
    """A Last Update Date before the row's own (and not before its other dates), or None when
    the row has no room for one."""
    if active.updated is None:
        return None
    room = (active.updated - active.floor).days if active.floor else _STALE_DAYS[1]
    if room < 1:
        return None
    low, high = min(_STALE_DAYS[0], room), min(_STALE_DAYS[1], room)
    return active.updated - timedelta(days=rng.randint(low, high))


class _Writer:
    """Builds the update rows of one week, each kept as one joined string until written."""

    def __init__(self, source: _Source, week: date, rng: random.Random) -> None:
        self._source, self._at, self._rng = source, source.layout, rng
        self._week = _mdy(week)
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

    def changed(self, active: _Active, changer: _Changer, *, stale: bool) -> str | None:
        """The NPI of a changed (or stale) row written, None when the row could not be."""
        day = _stale_date(active, self._rng) if stale else None
        row = active.fields.split(SEPARATOR)
        if (stale and day is None) or not changer.change(row):
            return None
        row[self._at.updated] = _mdy(day) if day else self._week
        self.add(row)
        return row[self._at.npi]

    def deactivated(self, active: _Active) -> str:
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
        enumerated = _date(row, self._at.enumerated)
        if enumerated is not None and enumerated > deactivated_on:
            row[self._at.enumerated] = _mdy(deactivated_on)  # enumerated before deactivated
        row[self._at.deactivated] = _mdy(deactivated_on)
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


def _week(source: _Source, week: date | None) -> date:
    if source.latest is None:
        if week is None:
            raise ValueError("the source has no dates: pass the week")
        return week
    if week is None:
        return source.latest + timedelta(days=7)
    if week < source.latest:
        raise ValueError(f"week {week} is before the source's latest date {source.latest}")
    return week


def generate_update(
    source: Path,
    out: Path,
    counts: UpdateCounts | None = None,
    *,
    seed: int = 1,
    week: date | None = None,
) -> UpdateStats:
    """Writes the update file; ``counts`` default to ``UpdateCounts.week`` of the source's
    active rows (which costs a pass over the source to count them)."""
    started = time.monotonic()
    if counts is None:
        counts = UpdateCounts.week(sum(isinstance(r, NppesRecord) for r in read_nppes(source)))
    rng = random.Random(seed)
    read = _read(source, rng, max(2 * counts.total, _SAMPLE_MIN), counts.reactivated)
    day = _week(read, week)
    at = read.layout
    changer = _Changer(at, (a.fields.split(SEPARATOR) for a in read.active), rng)
    writer = _Writer(read, day, rng)
    changed: list[str] = []
    stale: list[str] = []
    deactivated: list[str] = []
    for active in read.active:
        if len(stale) < counts.stale and (npi := writer.changed(active, changer, stale=True)):
            stale.append(npi)
        elif len(changed) < counts.changed and (
            npi := writer.changed(active, changer, stale=False)
        ):
            changed.append(npi)
        elif len(deactivated) < counts.deactivated:
            deactivated.append(writer.deactivated(active))
        elif (len(stale), len(changed)) == (counts.stale, counts.changed):
            break
    npis = UpdateNpis(
        new=tuple(writer.new() for _ in range(counts.new)),
        changed=tuple(changed),
        deactivated=tuple(deactivated),
        reactivated=tuple(writer.reactivated(npi, on) for npi, on in read.deactivated),
        stale=tuple(stale),
        invalid=tuple(writer.invalid() for _ in range(counts.invalid)),
    )
    rng.shuffle(writer.rows)
    partial = out.with_name(out.name + ".partial")
    gzip_name = out.name.removesuffix(".gz") if out.name.endswith(".gz") else None
    with open_out(partial, gzip_name) as handle:
        # Like the CMS file: every field quoted, CRLF.
        csv_writer = csv.writer(handle, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
        csv_writer.writerow(read.header)
        csv_writer.writerows(row.split(SEPARATOR) for row in writer.rows)
    partial.replace(out)
    return UpdateStats(
        requested=counts,
        written=npis.counts(),
        npis=npis,
        week=day,
        source_active=read.active_rows,
        source_deactivated=read.deactivated_rows,
        out=out,
        bytes=out.stat().st_size,
        elapsed_s=time.monotonic() - started,
        peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    )
