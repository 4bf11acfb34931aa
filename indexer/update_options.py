"""What every ``provider-indexer update`` takes, and how it fails."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from core.index_contract import IndexNames
from indexer.provenance import JoinFiles
from indexer.update_report import UpdateReport


@dataclass(frozen=True)
class UpdateOptions:
    names: IndexNames
    join_files: JoinFiles | None = None  # default: those the live version was built from
    reject_file: Path | None = None  # default: rejects/update-<kind>-<time>.csv
    today: date | None = None  # the date coverage is "in force" on (default: today)
    batch_rows: int = 2000  # rows decided per round trip (read what is indexed, write)
    max_bulk_errors: int = 0


class UpdateError(RuntimeError):
    """The update did not complete; every provider is as it was or as the file makes it."""


def reject_path(options: UpdateOptions, report: UpdateReport) -> Path:
    if options.reject_file is not None:
        return options.reject_file
    return Path("rejects") / f"update-{report.kind}-{report.version}-{Path(report.file).stem}.csv"
