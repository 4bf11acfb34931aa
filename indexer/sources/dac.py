"""CMS Doctors & Clinicians (DAC) / Physician Compare national downloadable files, any layout.

The layout is detected by header names: the 2021 DAC file (``adr_ln_1``, ``hosp_afl_1`` ...), the
2017 Physician Compare file ("Line 1 Street Address", "Hospital affiliation CCN 1" ...), the
current DAC names ("Facility Name", "City/Town", "ZIP Code", "Telephone Number") and reduced
extracts that keep only NPI and address. One row is one (NPI, group, address); an NPI has as many
rows as it has groups and addresses.

Memory: the table is held in memory while NPPES streams past it, keyed by NPI. Rows keep only
what the documents need, and addresses, groups and hospital lists are shared objects (a clinic
address or a group is stored once however many clinicians name it). Measured on the three raw
files (11,525 rows kept, 6,548 NPIs): 360 bytes per row, so the national file (about 2.7M rows)
needs at most about 1 GB, less as more clinicians share addresses and groups.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from core.npi import is_valid_npi
from indexer.sources.csvfiles import read_rows
from indexer.sources.hospitals import canonical_ccn
from indexer.sources.rejects import Reject

HOSPITAL_SLOTS = 5

_ALIASES: dict[str, tuple[str, ...]] = {
    "npi": ("NPI",),
    "org": ("org_nm", "Organization legal name", "Facility Name"),
    "org_pac": ("org_pac_id", "Group Practice PAC ID"),
    "line1": ("adr_ln_1", "Line 1 Street Address", "Address"),
    "line2": ("adr_ln_2", "Line 2 Street Address"),
    "city": ("cty", "City", "City/Town"),
    "state": ("st", "State"),
    "zip": ("zip", "Zip Code", "ZIP Code"),
    "phone": ("phn_numbr", "Phone Number", "Telephone Number"),
    "languages": ("Languages", "lang", "Language", "Languages Spoken"),
}
for _slot in range(1, HOSPITAL_SLOTS + 1):
    _ALIASES[f"ccn{_slot}"] = (f"hosp_afl_{_slot}", f"Hospital affiliation CCN {_slot}")
    _ALIASES[f"lbn{_slot}"] = (f"hosp_afl_lbn_{_slot}", f"Hospital affiliation LBN {_slot}")
_FIELDS = ("npi", "org", "org_pac", "line1", "line2", "city", "state", "zip", "phone", "languages")
_HOSPITAL_FIELDS = tuple(
    name for slot in range(1, HOSPITAL_SLOTS + 1) for name in (f"ccn{slot}", f"lbn{slot}")
)
_LANGUAGE_SPLIT = re.compile(r"\s*[,;|]\s*")

Group = tuple[str, str | None]  # (name, group PAC id)
Hospital = tuple[str, str | None]  # (CCN, name)


@dataclass(frozen=True, slots=True)
class DacAddress:
    line1: str
    line2: str
    city: str
    state: str
    zip: str  # digits: 5, or 9 for ZIP+4 (leading zeros restored)
    phone: str


@dataclass(frozen=True, slots=True)
class DacRow:
    address: DacAddress | None
    group: Group | None
    hospitals: tuple[Hospital, ...]


@dataclass
class DacTable:
    rows: dict[str, list[DacRow]]
    languages: dict[str, tuple[str, ...]]
    rows_read: dict[str, int]  # per file name


_T = TypeVar("_T")


class _Shared:
    """Interning of equal values, so repeated addresses/groups/hospital lists cost one object."""

    def __init__(self) -> None:
        self._values: dict[object, object] = {}

    def __call__(self, value: _T) -> _T:
        return self._values.setdefault(value, value)  # type: ignore[return-value]


def restore_zip(value: str) -> str:
    """ZIP digits with the leading zeros spreadsheets drop: ``4416`` -> ``04416``,
    ``41023134`` -> ``041023134``; anything else unchanged (minus a dash)."""
    digits = value.replace("-", "").strip()
    if not digits.isdigit():
        return digits
    if len(digits) <= 5:
        return digits.zfill(5)
    return digits.zfill(9) if len(digits) <= 9 else digits


def _phone(value: str) -> str:
    digits = "".join(c for c in value if c.isdigit())
    # Physician Compare appends extensions ("5014049582101"): keep the 10-digit number.
    return digits[:10] if len(digits) > 10 else digits


def _city(city: str, state: str) -> str:
    # The 2017 file sometimes repeats the state in the city ("LITTLE ROCK, AR").
    suffix = f", {state}"
    return city.removesuffix(suffix) if state and city.endswith(suffix) else city


def _languages(value: str) -> tuple[str, ...]:
    return tuple(part.title() for part in _LANGUAGE_SPLIT.split(value) if part)


def _hospitals(values: tuple[str, ...], names: dict[str, str]) -> tuple[Hospital, ...]:
    found: dict[str, str | None] = {}
    for ccn_text, lbn in zip(values[::2], values[1::2], strict=True):
        ccn = canonical_ccn(ccn_text)
        if ccn and ccn not in found:
            found[ccn] = names.get(ccn) or lbn or None
    return tuple(found.items())


def _read_one(
    path: Path, hospital_names: dict[str, str], table: DacTable, share: _Shared, reject: Reject
) -> None:
    columns, rows = read_rows(path, _ALIASES)
    if not columns.has("npi") or not (columns.has("line1") or columns.has("org")):
        raise ValueError(f"{path.name}: not a Doctors & Clinicians file (needs NPI and address)")
    pick = columns.picker(_FIELDS)
    pick_hospitals = columns.picker(_HOSPITAL_FIELDS)
    read = 0
    for number, row in rows:
        read += 1
        npi, org, org_pac, line1, line2, city, state, zip_code, phone, languages = pick(row)
        if not is_valid_npi(npi):
            reject(path.name, number, npi, "empty_row" if not any(row) else "invalid_npi")
            continue
        address = None
        if line1:
            address = share(
                DacAddress(
                    line1,
                    line2,
                    share(_city(city, state)),
                    share(state),
                    restore_zip(zip_code),
                    _phone(phone),
                )
            )
        group = share((org, org_pac or None)) if org else None
        hospitals = share(_hospitals(pick_hospitals(row), hospital_names))
        table.rows.setdefault(npi, []).append(share(DacRow(address, group, hospitals)))
        if languages:
            known = table.languages.get(npi, ())
            table.languages[npi] = tuple(dict.fromkeys((*known, *_languages(languages))))
    table.rows_read[path.name] = read


def read_dac(paths: Iterable[Path], hospital_names: dict[str, str], reject: Reject) -> DacTable:
    """Every DAC file into one table keyed by NPI; invalid rows go to ``reject``."""
    table = DacTable(rows={}, languages={}, rows_read={})
    share = _Shared()
    for path in paths:
        _read_one(path, hospital_names, table, share, reject)
    return table
