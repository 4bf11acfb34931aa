"""The CMS NPPES ``npidata_pfile`` (about 9M rows, 330 columns), streamed row by row.

Columns are matched by header name, accepting the renames CMS made over the years; a file without
an optional column (e.g. 2018's missing "Certification Date") simply yields empty values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from core.npi import is_valid_npi
from indexer.sources.csvfiles import Columns, ReadPosition, parse_date, read_rows
from indexer.sources.rejects import Reject

TAXONOMY_SLOTS = 15
_PRACTICE = "Provider Business Practice Location Address"

# The header names of each field read, current CMS name first (CMS renamed some over the years).
COLUMNS: dict[str, tuple[str, ...]] = {
    "npi": ("NPI",),
    "entity": ("Entity Type Code",),
    "org_name": ("Provider Organization Name (Legal Business Name)",),
    "last": ("Provider Last Name (Legal Name)",),
    "first": ("Provider First Name",),
    "middle": ("Provider Middle Name",),
    "prefix": ("Provider Name Prefix Text",),
    "suffix": ("Provider Name Suffix Text",),
    "credential": ("Provider Credential Text",),
    "other_org": ("Provider Other Organization Name",),
    "other_org_type": ("Provider Other Organization Name Type Code",),
    "other_last": ("Provider Other Last Name",),
    "other_first": ("Provider Other First Name",),
    "line1": ("Provider First Line Business Practice Location Address",),
    "line2": ("Provider Second Line Business Practice Location Address",),
    "city": (f"{_PRACTICE} City Name",),
    "state": (f"{_PRACTICE} State Name",),
    "postal": (f"{_PRACTICE} Postal Code",),
    "country": (f"{_PRACTICE} Country Code (If outside U.S.)",),
    "phone": (f"{_PRACTICE} Telephone Number",),
    "fax": (f"{_PRACTICE} Fax Number",),
    "enumerated": ("Provider Enumeration Date",),
    "updated": ("Last Update Date",),
    "deactivated": ("NPI Deactivation Date",),
    "reactivated": ("NPI Reactivation Date",),
    "sex": ("Provider Sex Code", "Provider Gender Code"),
    "deactivation_reason": ("NPI Deactivation Reason Code",),
}
# Read on every row, in this order (see _classify and _record).
_FIELDS = tuple(field for field in COLUMNS if field != "deactivation_reason")
for _slot in range(1, TAXONOMY_SLOTS + 1):
    COLUMNS[f"tax{_slot}"] = (f"Healthcare Provider Taxonomy Code_{_slot}",)
    COLUMNS[f"lic{_slot}"] = (f"Provider License Number_{_slot}",)
    COLUMNS[f"licstate{_slot}"] = (f"Provider License Number State Code_{_slot}",)
    COLUMNS[f"primary{_slot}"] = (f"Healthcare Provider Primary Taxonomy Switch_{_slot}",)
_CODES = tuple(f"tax{slot}" for slot in range(1, TAXONOMY_SLOTS + 1))
ADDRESS_FIELDS = ("line1", "line2", "city", "state", "postal", "country", "phone", "fax")


def column(field: str) -> str:
    """The current CMS header name of a field (``COLUMNS``)."""
    return COLUMNS[field][0]


REQUIRED_COLUMNS = ("npi", "entity", "last", "org_name", "postal")
DBA_TYPE_CODE = "3"  # NPPES "Other Organization Name Type Code": 3 = Doing Business As


@dataclass(slots=True)
class Taxonomy:
    code: str
    license_number: str | None
    license_state: str | None
    primary: bool


@dataclass(slots=True)
class NppesRecord:
    row_number: int
    npi: str
    entity_type: str  # "1" individual, "2" organisation
    organization_name: str
    doing_business_as: str
    other_organization_names: tuple[str, ...]
    other_person_names: tuple[str, ...]
    last_name: str
    first_name: str
    middle_name: str
    prefix: str
    suffix: str
    credential: str
    sex: str
    line1: str
    line2: str
    city: str
    state: str
    postal_code: str
    country: str
    phone: str
    fax: str
    enumeration_date: date | None
    last_update: date | None
    taxonomies: tuple[Taxonomy, ...]
    reactivated_on: date | None = None  # set when the NPI was deactivated, then reactivated


@dataclass(slots=True)
class Deactivated:
    row_number: int
    npi: str
    deactivated_on: date


NppesRow = NppesRecord | Deactivated


class _RowReader:
    """Turns one raw row into a classified record, with every column position resolved once;
    a row it cannot use goes to ``reject`` (None)."""

    def __init__(self, columns: Columns, source: str, reject: Reject) -> None:
        self._columns = columns
        self._source = source
        self._reject = reject
        self._fields = columns.picker(_FIELDS)
        self._codes = columns.picker(_CODES)
        self._slot_details = [
            columns.picker((f"lic{slot}", f"licstate{slot}", f"primary{slot}"))
            for slot in range(1, TAXONOMY_SLOTS + 1)
        ]

    def _taxonomies(self, row: list[str]) -> tuple[Taxonomy, ...]:
        found = []
        for slot, code in enumerate(self._codes(row)):
            if code:
                license_number, license_state, primary = self._slot_details[slot](row)
                found.append(
                    Taxonomy(code, license_number or None, license_state or None, primary == "Y")
                )
        return tuple(found)

    def _rejected(self, number: int, npi: str, reason: str) -> None:
        self._reject(self._source, number, npi, reason)

    def classify(self, number: int, row: list[str]) -> NppesRow | None:
        (
            npi,
            entity,
            org_name,
            last,
            first,
            middle,
            prefix,
            suffix,
            credential,
            other_org,
            other_org_type,
            other_last,
            other_first,
            line1,
            line2,
            city,
            state,
            postal,
            country,
            phone,
            fax,
            enumerated,
            updated,
            deactivated,
            reactivated,
            sex,
        ) = self._fields(row)
        if not is_valid_npi(npi):
            self._rejected(number, npi, "invalid_npi")
            return None
        try:
            deactivated_on = parse_date(deactivated)
            reactivated_on = None
            if deactivated_on is not None:
                reactivated_on = parse_date(reactivated)
                if reactivated_on is None or reactivated_on < deactivated_on:
                    return Deactivated(number, npi, deactivated_on)
            if entity not in ("1", "2"):
                self._rejected(number, npi, "unknown_entity_type")
                return None
            is_dba = bool(other_org) and other_org_type == DBA_TYPE_CODE
            other_person = f"{other_first} {other_last}".strip()
            return NppesRecord(
                row_number=number,
                npi=npi,
                entity_type=entity,
                organization_name=org_name,
                doing_business_as=other_org if is_dba else "",
                other_organization_names=(other_org,) if other_org and not is_dba else (),
                other_person_names=(other_person,) if other_person else (),
                last_name=last,
                first_name=first,
                middle_name=middle,
                prefix=prefix,
                suffix=suffix,
                credential=credential,
                sex=sex,
                line1=line1,
                line2=line2,
                city=city,
                state=state,
                postal_code=postal,
                country=country,
                phone=phone,
                fax=fax,
                enumeration_date=parse_date(enumerated),
                last_update=parse_date(updated),
                taxonomies=self._taxonomies(row),
                reactivated_on=reactivated_on,
            )
        except ValueError:
            self._rejected(number, npi, "invalid_date")
            return None


def _opened(
    path: Path, reject: Reject, position: ReadPosition | None
) -> tuple[Columns, Callable[[int, list[str]], NppesRow | None], Iterator[tuple[int, list[str]]]]:
    columns, rows = read_rows(path, COLUMNS, position=position)
    missing = [name for name in REQUIRED_COLUMNS if not columns.has(name)]
    if missing:
        raise ValueError(f"{path.name}: not an NPPES npidata_pfile (missing columns {missing})")
    return columns, _RowReader(columns, path.name, reject).classify, rows


def read_nppes_rows(
    path: Path, reject: Reject, position: ReadPosition | None = None
) -> tuple[Columns, Iterator[tuple[list[str], NppesRow]]]:
    """The file's columns and every usable data row as (raw fields, classified row), for tools
    that rewrite rows (the scale generator)."""
    columns, classify, rows = _opened(path, reject, position)
    return columns, (
        (row, classified)
        for number, row in rows
        if (classified := classify(number, row)) is not None
    )


def read_nppes(
    path: Path, reject: Reject, position: ReadPosition | None = None
) -> Iterator[NppesRow]:
    """Every data row of the file, a record or deactivated; the others go to ``reject``."""
    _, classify, rows = _opened(path, reject, position)
    return (classified for number, row in rows if (classified := classify(number, row)) is not None)
