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

The source's sample is read by ``weekly_source``; the rows of each kind are made and written
by ``weekly_rows``.
"""

from __future__ import annotations

import csv
import random
import resource
import time
from dataclasses import astuple, dataclass, fields
from datetime import date, timedelta
from pathlib import Path
from typing import TypeVar

from indexer.generate.nppes import SEPARATOR, open_out
from indexer.generate.weekly_rows import Changer, RowWriter
from indexer.generate.weekly_source import Source, read_source
from indexer.sources.nppes import NppesRecord, read_nppes
from indexer.sources.rejects import ignore_rejects

_T = TypeVar("_T")
WEEKLY_SHARE = 0.002  # of all NPIs, in one weekly file
_SHARES = {"new": 25, "changed": 68, "deactivated": 5, "reactivated": 1, "stale": 1}  # percent
_AT_LEAST_ONE = ("changed", "new", "deactivated")
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


def _week(source: Source, week: date | None) -> date:
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
        counts = UpdateCounts.week(
            sum(isinstance(r, NppesRecord) for r in read_nppes(source, ignore_rejects))
        )
    rng = random.Random(seed)
    read = read_source(source, rng, max(2 * counts.total, _SAMPLE_MIN), counts.reactivated)
    day = _week(read, week)
    at = read.layout
    changer = Changer(at, (a.fields.split(SEPARATOR) for a in read.active), rng)
    writer = RowWriter(read, day, rng)
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
