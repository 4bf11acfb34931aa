"""CMS Care Compare "Hospital General Information": CCN (Facility ID) -> hospital name."""

from __future__ import annotations

from pathlib import Path

from indexer.sources.csvfiles import read_rows

_ALIASES: dict[str, tuple[str, ...]] = {
    "ccn": ("Facility ID", "Provider ID", "CCN"),
    "name": ("Facility Name", "Hospital Name"),
}


def canonical_ccn(value: str) -> str | None:
    """A CMS Certification Number as 6 characters: spreadsheets dropped leading zeros
    (``10001`` is ``010001``), so all-digit values are zero-padded; None when empty."""
    value = value.strip().upper()
    if not value:
        return None
    return value.zfill(6) if value.isdigit() else value


def read_hospitals(path: Path) -> dict[str, str]:
    columns, rows = read_rows(path, _ALIASES)
    if not columns.has("ccn") or not columns.has("name"):
        raise ValueError(f"{path.name}: not a Hospital General Information file (no Facility ID)")
    pick = columns.picker(("ccn", "name"))
    names: dict[str, str] = {}
    for _, row in rows:
        raw_ccn, name = pick(row)
        ccn = canonical_ccn(raw_ccn)
        if ccn and name:
            names[ccn] = name
    return names
