"""The Doctors & Clinicians and hospital slices of the bundled sample: rows of the sampled NPIs
(plus a few NPIs NPPES lacks), and the hospitals those rows name or the sample's metros hold."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from devtools.csv_subsets import Row, column_index, line_ending, read_csv, write_csv
from indexer.sources.hospitals import canonical_ccn

COL_NPI = "NPI"
DAC_MISSING_PER_FILE = 10  # DAC NPIs absent from NPPES, kept per DAC file


@dataclass(frozen=True)
class DacSpec:
    """One DAC-family source file and the sample file cut from it."""

    source: str
    target: str
    ccn_columns: tuple[str, ...]


DAC_SPECS: tuple[DacSpec, ...] = (
    DacSpec(
        "dac/doctorspoint_DAC_NationalDownloadableFile.csv",
        "dac_2021_layout.csv",
        tuple(f"hosp_afl_{i}" for i in range(1, 6)),
    ),
    DacSpec(
        "dac/Physician_Compare_National_Downloadable_File_2017.csv",
        "physician_compare_2017_layout.csv",
        tuple(f"Hospital affiliation CCN {i}" for i in range(1, 6)),
    ),
    DacSpec("dac/arthi_DAC_NationalDownloadableFile_ME_reduced.csv", "dac_me_reduced.csv", ()),
)

HOSPITAL_SOURCE = "hospitals/Hospital_General_Information.csv"
HOSPITAL_TARGET = "Hospital_General_Information.csv"


@dataclass
class DacResult:
    """Rows kept from one DAC file and why."""

    spec: DacSpec
    in_sample: int = 0
    missing_npis: list[str] = field(default_factory=list)
    ccns: set[str] = field(default_factory=set)


def dac_npis(raw: Path) -> set[str]:
    """Every (whitespace-stripped, non-empty) NPI named in any DAC file."""
    npis: set[str] = set()
    for spec in DAC_SPECS:
        path = raw / spec.source
        with read_csv(path) as rows:
            npi_col = column_index(next(rows), COL_NPI)
            npis.update(row[npi_col].strip() for row in rows if row[npi_col].strip())
    return npis


def first_missing(rows: list[Row], npi_col: int, all_npis: set[str]) -> set[int]:
    """Row indexes of the first row of each of the lowest NPIs that NPPES lacks."""
    first: dict[str, int] = {}
    for i, row in enumerate(rows):
        npi = row[npi_col].strip()
        if npi and npi not in all_npis:
            first.setdefault(npi, i)
    return {first[n] for n in sorted(first)[:DAC_MISSING_PER_FILE]}


def subset_dac(
    raw: Path, out: Path, spec: DacSpec, sample: set[str], all_npis: set[str]
) -> DacResult:
    """Keep rows of sampled NPIs plus a few NPPES-absent NPIs, in source order."""
    path = raw / spec.source
    with read_csv(path) as reader:
        header, rows = next(reader), list(reader)
    npi_col = column_index(header, COL_NPI)
    ccn_cols = [column_index(header, c) for c in spec.ccn_columns]
    missing = first_missing(rows, npi_col, all_npis)
    result = DacResult(spec)
    kept: list[Row] = [header]
    for i, row in enumerate(rows):
        npi = row[npi_col].strip()
        if npi in sample:
            result.in_sample += 1
        elif i in missing:
            result.missing_npis.append(npi)
        else:
            continue
        kept.append(row)
        result.ccns.update(filter(None, (canonical_ccn(row[c]) for c in ccn_cols)))
    write_csv(out / spec.target, line_ending(path), kept)
    return result


def hospital_reason(
    row: dict[str, str], ccns: set[str], zip_metro: dict[str, str], states: set[str]
) -> str:
    """Why a hospital row is kept ('' if it is not)."""
    if canonical_ccn(row["Facility ID"]) in ccns:
        return "dac_affiliation"
    if row["State"] in states:
        return f"state_{row['State']}"
    return zip_metro.get(row["ZIP Code"].strip().zfill(5)[:5], "")


def subset_hospitals(
    raw: Path, out: Path, ccns: set[str], zip_metro: dict[str, str], states: set[str]
) -> tuple[dict[str, int], int]:
    """Write the kept hospitals; return counts per reason and DAC CCNs not found."""
    path = raw / HOSPITAL_SOURCE
    with read_csv(path) as reader:
        header, rows = next(reader), list(reader)
    counts: dict[str, int] = {}
    kept = [header]
    for row in rows:
        reason = hospital_reason(dict(zip(header, row, strict=True)), ccns, zip_metro, states)
        if reason:
            counts[reason] = counts.get(reason, 0) + 1
            kept.append(row)
    write_csv(out / HOSPITAL_TARGET, line_ending(path), kept)
    known = {canonical_ccn(r[column_index(header, "Facility ID")]) for r in rows}
    return counts, len(ccns - known)
