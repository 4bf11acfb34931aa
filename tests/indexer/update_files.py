"""An independent merge of NPPES files for the update tests (csv module only, no indexer code):
the file a full load would read to hold what a base file and its weekly files say."""

from __future__ import annotations

import csv
from datetime import datetime
from pathlib import Path

from tests.source_rows import is_active, nppes_rows


def _date(row: dict[str, str]) -> datetime | None:
    text = row["Last Update Date"] or row["NPI Deactivation Date"]
    return datetime.strptime(text, "%m/%d/%Y") if text else None


def _older(row: dict[str, str], known: dict[str, str]) -> bool:
    mine, theirs = _date(row), _date(known)
    return mine is not None and theirs is not None and mine < theirs


def merge(base: Path, weeks: list[Path], out: Path) -> Path:
    """One row per NPI: a week's row replaces the known one unless it is older than an active
    known row (stale); a deactivated NPI is forgotten, so any later row for it applies."""
    merged = {row["NPI"]: row for row in nppes_rows(base)}
    for path in weeks:
        for row in nppes_rows(path):
            known = merged.get(row["NPI"])
            if known is None or not is_active(known) or not _older(row, known):
                merged[row["NPI"]] = row
    header = list(next(iter(merged.values())))
    with open(out, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, header, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(merged.values())
    return out
