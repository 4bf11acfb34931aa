"""The NUCC Health Care Provider Taxonomy code set (CSV as published by NUCC)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from indexer.sources.csvfiles import read_rows

_ALIASES: dict[str, tuple[str, ...]] = {
    "code": ("Code",),
    "grouping": ("Grouping",),
    "classification": ("Classification",),
    "specialization": ("Specialization",),
    "display": ("Display Name",),
    "definition": ("Definition",),
    "section": ("Section",),
}


@dataclass(frozen=True, slots=True)
class TaxonomyEntry:
    code: str
    display_name: str
    grouping: str | None
    classification: str | None
    specialization: str | None
    definition: str | None = None
    section: str | None = None  # "Individual" or "Non-Individual"


def _display_name(classification: str, specialization: str, given: str) -> str:
    # Older code sets have no "Display Name" column: build NUCC's usual form.
    if given:
        return given
    return f"{classification}, {specialization}" if specialization else classification


def read_nucc(path: Path) -> dict[str, TaxonomyEntry]:
    columns, rows = read_rows(path, _ALIASES)
    if not columns.has("code") or not columns.has("classification"):
        raise ValueError(f"{path.name}: not a NUCC taxonomy CSV (needs Code and Classification)")
    table: dict[str, TaxonomyEntry] = {}
    for _, row in rows:
        code = columns.get(row, "code")
        classification = columns.get(row, "classification")
        specialization = columns.get(row, "specialization")
        table[code] = TaxonomyEntry(
            code=code,
            display_name=_display_name(classification, specialization, columns.get(row, "display")),
            grouping=columns.get(row, "grouping") or None,
            classification=classification or None,
            specialization=specialization or None,
            definition=columns.get(row, "definition") or None,
            section=columns.get(row, "section") or None,
        )
    return table
