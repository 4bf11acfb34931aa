"""Expectations computed from the sample files with plain ``csv`` (no indexer code), so the
indexer's output is compared with the files rather than with itself."""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.source_rows import active_rows

PRACTICE = "Provider Business Practice Location Address"
NPPES_LINE1 = "Provider First Line Business Practice Location Address"
NPPES_LINE2 = "Provider Second Line Business Practice Location Address"

# Column names of the three DAC layouts in the sample: (line1, line2, city, state, zip, org,
# org PAC id, hospital CCN n, hospital LBN n).
DAC_LAYOUTS = {
    "dac_2021_layout.csv": (
        "adr_ln_1", "adr_ln_2", "cty", "st", "zip", "org_nm", "org_pac_id",
        "hosp_afl_{}", "hosp_afl_lbn_{}",
    ),
    "physician_compare_2017_layout.csv": (
        "Line 1 Street Address", "Line 2 Street Address", "City", "State", "Zip Code",
        "Organization legal name", "Group Practice PAC ID",
        "Hospital affiliation CCN {}", "Hospital affiliation LBN {}",
    ),
    "dac_me_reduced.csv": (
        "Address", "", "City/Town", "State", "ZIP Code", "", "", "", "",
    ),
}  # fmt: skip


def csv_dicts(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8-sig", newline="") as handle:
        lines = (line for line in handle if not line.startswith("#"))
        reader = csv.reader(lines, skipinitialspace=True)
        header = [name.strip() for name in next(reader)]
        return [dict(zip(header, row, strict=True)) for row in reader]


def hospital_names(sample: Path) -> dict[str, str]:
    rows = csv_dicts(sample / "Hospital_General_Information.csv")
    return {row["Facility ID"].zfill(6): row["Facility Name"] for row in rows}


def dac_rows(sample: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """(layout file name, row) for every DAC row of the sample with a valid-looking NPI."""
    for name in DAC_LAYOUTS:
        for row in csv_dicts(sample / name):
            if re.fullmatch(r"[0-9]{10}", row["NPI"].strip()):
                yield name, row


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^A-Z0-9 ]+", " ", text.upper()).split())


def _zip(text: str) -> str:
    digits = text.replace("-", "")
    return digits.zfill(5) if len(digits) <= 5 else digits.zfill(9)


# USPS Publication 28 forms of the words the sample's addresses spell out, and the unit
# designators after which line 1 names a suite, not another address.
_USPS = {"STREET": "ST", "AVENUE": "AVE", "ROAD": "RD", "DRIVE": "DR", "BOULEVARD": "BLVD",
         "LANE": "LN", "COURT": "CT", "PLACE": "PL", "PARKWAY": "PKWY", "HIGHWAY": "HWY",
         "CENTER": "CTR", "NORTH": "N", "SOUTH": "S", "EAST": "E", "WEST": "W", "CIRCLE": "CIR",
         "SQUARE": "SQ", "TERRACE": "TER", "PLAZA": "PLZ", "ROUTE": "RTE",
         "TRAIL": "TRL"}  # fmt: skip
_UNIT = re.compile(
    r" (STE|SUITE|UNIT|APT|RM|ROOM|FL|FLOOR|FLR|BLDG|BUILDING|DEPT|OFC|OFFICE)( .*)?$"
)


def _keys(line1: str, line2: str, city: str, state: str, zip_code: str) -> set[str]:
    """Street and number as the USPS spells them, without a unit, in the ZIP5."""
    street = _UNIT.sub("", " " + _norm(line1.replace("#", " STE "))).strip()
    return {" ".join(_USPS.get(word, word) for word in street.split()) + "|" + zip_code[:5]}


def dac_address(name: str, row: dict[str, str]) -> tuple[str, str, str, str, str] | None:
    line1, line2, city, state, zip_code = (
        row.get(column, "").strip() if column else "" for column in DAC_LAYOUTS[name][:5]
    )
    if not line1:
        return None
    city = city.removesuffix(f", {state}")
    return line1, line2, city, state, _zip(zip_code)


def expected_locations(sample: Path, nppes: Path) -> dict[str, int]:
    """Locations per active NPI: the NPPES address plus each DAC address not already known."""
    known: dict[str, set[str]] = {}
    counts: dict[str, int] = {}
    for row in active_rows(nppes):
        npi = row["NPI"]
        known[npi] = _keys(
            row[NPPES_LINE1], row[NPPES_LINE2], row[f"{PRACTICE} City Name"],
            row[f"{PRACTICE} State Name"], row[f"{PRACTICE} Postal Code"],
        )  # fmt: skip
        counts[npi] = 1
    for name, row in dac_rows(sample):
        npi = row["NPI"].strip()
        address = dac_address(name, row)
        if npi not in counts or address is None:
            continue
        keys = _keys(*address)
        if not keys & known[npi]:
            counts[npi] += 1
        known[npi] |= keys
    return counts


def expected_affiliations(
    sample: Path,
) -> tuple[dict[str, list[tuple[str, str | None]]], dict[str, dict[str, str | None]]]:
    """Per NPI: groups [(name, PAC id)] and hospitals {CCN: name} over all its DAC rows."""
    names = hospital_names(sample)
    groups: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    hospitals: dict[str, dict[str, str | None]] = defaultdict(dict)
    for name, row in dac_rows(sample):
        npi = row["NPI"].strip()
        _, _, _, _, _, org, pac, ccn, lbn = DAC_LAYOUTS[name]
        if org and row[org].strip():
            group = (row[org].strip(), row[pac].strip() or None)
            if group not in groups[npi]:
                groups[npi].append(group)
        for slot in range(1, 6) if ccn else ():
            code = row[ccn.format(slot)].strip()
            if code:
                code = code.zfill(6)
                lbn_value = row[lbn.format(slot)].strip() or None
                hospitals[npi].setdefault(code, names.get(code) or lbn_value)
    return groups, hospitals


Period = tuple[str, str | None, str | None]


def in_network(coverage: Path) -> dict[str, set[Period]]:
    """NPI -> ("year:bid", effective date, termination date) of its in-network rows."""
    found: dict[str, set[Period]] = defaultdict(set)
    for row in csv_dicts(coverage):
        if row["network_status"] == "in_network":
            key = f"{row['contract_year']}:{row['bid_id']}"
            period = (key, row["effective_date"] or None, row["termination_date"] or None)
            found[row["npi"]].add(period)
    return found


def stored_periods(search_doc: dict[str, Any]) -> set[Period]:
    """The same, as a search document holds it."""
    return {
        (entry["key"], entry["period"].get("gte"), entry["period"].get("lt"))
        for entry in search_doc["networks"]
    }
