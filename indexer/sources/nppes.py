"""The CMS NPPES ``npidata_pfile`` (about 9M rows, 330 columns), streamed row by row.

Columns are matched by header name, accepting the renames CMS made over the years; a file without
an optional column (e.g. 2018's missing "Certification Date") simply yields empty values.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from core.npi import is_valid_npi
from indexer.sources.csvfiles import Columns, parse_date, read_rows

TAXONOMY_SLOTS = 15
_PRACTICE = "Provider Business Practice Location Address"

_ALIASES: dict[str, tuple[str, ...]] = {
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
}
for _slot in range(1, TAXONOMY_SLOTS + 1):
    _ALIASES[f"tax{_slot}"] = (f"Healthcare Provider Taxonomy Code_{_slot}",)
    _ALIASES[f"lic{_slot}"] = (f"Provider License Number_{_slot}",)
    _ALIASES[f"licstate{_slot}"] = (f"Provider License Number State Code_{_slot}",)
    _ALIASES[f"primary{_slot}"] = (f"Healthcare Provider Primary Taxonomy Switch_{_slot}",)

REQUIRED_COLUMNS = ("npi", "entity", "last", "org_name", "postal")
DBA_TYPE_CODE = "3"  # NPPES "Other Organization Name Type Code": 3 = Doing Business As


@dataclass(frozen=True, slots=True)
class Taxonomy:
    code: str
    license_number: str | None
    license_state: str | None
    primary: bool


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class Deactivated:
    row_number: int
    npi: str


@dataclass(frozen=True, slots=True)
class Rejected:
    row_number: int
    npi: str
    reason: str


NppesRow = NppesRecord | Deactivated | Rejected


def _is_deactivated(columns: Columns, row: list[str]) -> bool:
    deactivated = parse_date(columns.get(row, "deactivated"))
    if deactivated is None:
        return False
    reactivated = parse_date(columns.get(row, "reactivated"))
    return reactivated is None or reactivated < deactivated


def _taxonomies(columns: Columns, row: list[str]) -> tuple[Taxonomy, ...]:
    found = []
    for slot in range(1, TAXONOMY_SLOTS + 1):
        code = columns.get(row, f"tax{slot}")
        if code:
            found.append(
                Taxonomy(
                    code=code,
                    license_number=columns.get(row, f"lic{slot}") or None,
                    license_state=columns.get(row, f"licstate{slot}") or None,
                    primary=columns.get(row, f"primary{slot}").upper() == "Y",
                )
            )
    return tuple(found)


def _record(number: int, npi: str, columns: Columns, row: list[str]) -> NppesRecord:
    get = columns.get
    other_org = get(row, "other_org")
    is_dba = other_org and get(row, "other_org_type") == DBA_TYPE_CODE
    other_person = " ".join(p for p in (get(row, "other_first"), get(row, "other_last")) if p)
    return NppesRecord(
        row_number=number,
        npi=npi,
        entity_type=get(row, "entity"),
        organization_name=get(row, "org_name"),
        doing_business_as=other_org if is_dba else "",
        other_organization_names=(other_org,) if other_org and not is_dba else (),
        other_person_names=(other_person,) if other_person else (),
        last_name=get(row, "last"),
        first_name=get(row, "first"),
        middle_name=get(row, "middle"),
        prefix=get(row, "prefix"),
        suffix=get(row, "suffix"),
        credential=get(row, "credential"),
        sex=get(row, "sex"),
        line1=get(row, "line1"),
        line2=get(row, "line2"),
        city=get(row, "city"),
        state=get(row, "state"),
        postal_code=get(row, "postal"),
        country=get(row, "country"),
        phone=get(row, "phone"),
        fax=get(row, "fax"),
        enumeration_date=parse_date(get(row, "enumerated")),
        last_update=parse_date(get(row, "updated")),
        taxonomies=_taxonomies(columns, row),
    )


def _classify(number: int, columns: Columns, row: list[str]) -> NppesRow:
    npi = columns.get(row, "npi")
    if not is_valid_npi(npi):
        return Rejected(number, npi, "invalid_npi")
    try:
        if _is_deactivated(columns, row):
            return Deactivated(number, npi)
        if columns.get(row, "entity") not in ("1", "2"):
            return Rejected(number, npi, "unknown_entity_type")
        return _record(number, npi, columns, row)
    except ValueError:
        return Rejected(number, npi, "invalid_date")


def read_nppes(path: Path) -> Iterator[NppesRow]:
    """Every data row of the file, classified as a record, deactivated, or rejected."""
    columns, rows = read_rows(path, _ALIASES)
    missing = [name for name in REQUIRED_COLUMNS if not columns.has(name)]
    if missing:
        raise ValueError(f"{path.name}: not an NPPES npidata_pfile (missing columns {missing})")
    for number, row in rows:
        yield _classify(number, columns, row)
