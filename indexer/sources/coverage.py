"""Plan participation ("coverage") files: which NPI is in which Medicare Advantage plan.

No public CMS file says this, so the format is ours. A CSV (UTF-8, gzip allowed; lines starting
with ``#`` are comments) with this header, columns in any order:

=======================  ==========================================================================
column                   value
=======================  ==========================================================================
contract_year            plan year, e.g. ``2026``
bid_id                   contract-PBP-segment: ``H1234_001_000``; ``-`` also separates, and a
                         missing segment means ``000`` (``H1234-001``)
npi                      10-digit NPI with a valid check digit
location_id              empty: every location of the NPI; else one location ``id`` (as served
                         by ``GET /v2/providers/{npi}/locations``)
network_status           ``in_network`` or ``out_of_network``
accepting_new_patients   ``Y``, ``N`` or empty (unknown)
effective_date           ``YYYY-MM-DD`` (``MM/DD/YYYY`` accepted); empty: since ever
termination_date         same formats, exclusive; empty: open-ended
source                   free text naming where the row came from (e.g. a network file)
action                   optional, for ``provider-indexer update --coverage``: ``upsert`` (or empty)
                         adds or replaces the row with this (year, bid id, NPI, location);
                         ``delete`` removes it (only those four key columns are read). A full
                         ``load`` rejects ``delete`` rows: it starts from nothing.
=======================  ==========================================================================

A row with an invalid contract year, bid id, NPI, location id, status, flag or date, a
termination not after the effective date, is rejected with its row number and reason, never
indexed; so is a row with the same (year, bid id, NPI, location) as an earlier one (the loader
remembers the ids it wrote; the first row wins).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from core.documents import CoverageDoc, NetworkStatus
from core.index_contract import coverage_doc_id
from core.npi import is_valid_npi
from core.plans import canonical_bid_id
from indexer.sources.csvfiles import parse_date, read_rows
from indexer.sources.rejects import Reject

HEADER = (
    "contract_year",
    "bid_id",
    "npi",
    "location_id",
    "network_status",
    "accepting_new_patients",
    "effective_date",
    "termination_date",
    "source",
)
_COLUMNS = (*HEADER, "action")  # the action column: update deltas only
REQUIRED = ("contract_year", "bid_id", "npi", "network_status")
_STATUSES: dict[str, NetworkStatus] = {
    "in_network": "in_network",
    "out_of_network": "out_of_network",
}
_FLAGS = {"Y": True, "YES": True, "N": False, "NO": False, "": None}


@dataclass(frozen=True, slots=True)
class CoverageRow:
    row_number: int
    doc: CoverageDoc

    @property
    def doc_id(self) -> str:
        doc = self.doc
        return coverage_doc_id(doc["contractYear"], doc["bidId"], doc["npi"], doc["locationId"])


@dataclass(frozen=True, slots=True)
class CoverageDelete:
    """A delta row removing the row with this key."""

    row_number: int
    npi: str
    doc_id: str


class _Invalid(ValueError):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _year(text: str) -> int:
    if not (len(text) == 4 and text.isdigit()):
        raise _Invalid("invalid_contract_year")
    return int(text)


def _location(text: str) -> str | None:
    if not text:
        return None
    try:
        return str(uuid.UUID(text))
    except ValueError:
        raise _Invalid("invalid_location_id") from None


def _date(text: str) -> str | None:
    try:
        parsed = parse_date(text)
    except ValueError:
        raise _Invalid("invalid_date") from None
    return parsed.isoformat() if parsed else None


def _key(year: str, raw_bid: str, npi: str) -> tuple[int, str]:
    contract_year = _year(year)
    bid = canonical_bid_id(raw_bid)
    if bid is None:
        raise _Invalid("invalid_bid_id")
    if not is_valid_npi(npi):
        raise _Invalid("invalid_npi")
    return contract_year, bid


def _doc(fields: tuple[str, ...], default_source: str) -> CoverageDoc:
    year, raw_bid, npi, location, status, accepting, effective, terminated, source, _ = fields
    contract_year, bid = _key(year, raw_bid, npi)
    network_status = _STATUSES.get(status.lower())
    if network_status is None:
        raise _Invalid("invalid_network_status")
    if accepting.upper() not in _FLAGS:
        raise _Invalid("invalid_accepting_new_patients")
    effective_date, termination_date = _date(effective), _date(terminated)
    if effective_date and termination_date and termination_date <= effective_date:
        raise _Invalid("termination_not_after_effective")
    return CoverageDoc(
        contractYear=contract_year,
        bidId=bid,
        npi=npi,
        locationId=_location(location),
        networkStatus=network_status,
        acceptingNewPatients=_FLAGS[accepting.upper()],
        effectiveDate=effective_date,
        terminationDate=termination_date,
        source=source or default_source,
    )


def _delete(number: int, fields: tuple[str, ...]) -> CoverageDelete:
    year, raw_bid, npi, location = fields[:4]
    contract_year, bid = _key(year, raw_bid, npi)
    doc_id = coverage_doc_id(contract_year, bid, npi, _location(location))
    return CoverageDelete(number, npi, doc_id)


_ACTIONS = ("", "upsert", "delete")


def read_coverage(path: Path, reject: Reject) -> Iterator[CoverageRow | CoverageDelete]:
    """Every data row, as a coverage document or a deletion (delta files); the others go to
    ``reject`` with their reason."""
    columns, rows = read_rows(path, {name: () for name in _COLUMNS}, comment="#")
    missing = [name for name in REQUIRED if not columns.has(name)]
    if missing:
        raise ValueError(f"{path.name}: not a coverage file (missing columns {missing})")
    pick = columns.picker(_COLUMNS)
    for number, row in rows:
        fields = pick(row)
        action = fields[-1].lower()
        try:
            if action not in _ACTIONS:
                raise _Invalid("invalid_action")
            if action == "delete":
                yield _delete(number, fields)
            else:
                yield CoverageRow(number, _doc(fields, path.name))
        except _Invalid as invalid:
            reject(path.name, number, fields[2], invalid.reason)
