"""Build the bundled sample data set (``data/sample/``) from the raw CMS files.

What: a small, real-data slice of every source the indexer reads, in the *same formats and
headers* as the raw files (the indexer reads columns by header name), so that the service,
the indexer and the tests can run end-to-end without the 15 MB (165 MB unzipped) NPPES file:

* ``npidata_pfile_sample.csv.gz``: NPPES rows (330 columns, every field quoted like CMS)
  chosen by practice-location ZIP around a few metro centres (lower Manhattan, Austin,
  Chicago, Los Angeles, Miami, Portland ME, plus Manchester NH and Columbia SC, the only
  states with Medicare Advantage ZIP/plan data), every NPI named in the DAC files, and a
  few deactivated / reactivated NPIs so deactivation handling is exercised.
* DAC / Physician Compare subsets (rows for sampled NPIs plus a few NPIs NPPES lacks),
  the hospitals those rows are affiliated with plus the hospitals of the sample metros,
  the NUCC taxonomy and the Medicare Advantage plan files (copied whole).

Why a script: the sample must be reproducible and reviewable. Every choice is
deterministic (metro caps take the lowest NPIs, files keep their source order, gzip is
written with ``mtime=0`` and no file name), so running it twice gives identical bytes.

The NPPES selection, the metros and the run's report live here; the DAC and hospital slices are in
``devtools/sample_side_files.py``, the format-preserving CSV writing in ``devtools/csv_subsets.py``.
Reading (gzip, decoding), ZIP geography and the CCN rule are the indexer's and core's own.

Usage (from the repository root)::

    .venv/bin/python -m devtools.build_sample --raw ../shared/data/raw --out data/sample
"""

import argparse
import gzip
import hashlib
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple

from core.geo import all_zip_places, haversine_miles, zip5
from devtools.csv_subsets import column_index, line_ending, read_csv, write_gzip_csv
from devtools.sample_side_files import DAC_SPECS, DacResult, dac_npis, subset_dac, subset_hospitals
from indexer.sources.nppes import column

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_RAW = REPO_ROOT.parent / "shared" / "data" / "raw"
PLAN_NET_TARGET = "plannet"  # a directory: a Plan-Net export is read as one (load --plan-net)
DEFAULT_OUT = REPO_ROOT / "data" / "sample"

NPPES_SOURCE = "nppes/npidata_pfile_RECONSTRUCTED_from_nppes_weekly_2024-01-01_to_2024-02-11.csv.gz"
NPPES_TARGET = "npidata_pfile_sample.csv.gz"
COL_NPI = column("npi")
COL_ENTITY = column("entity")
COL_ZIP = column("postal")
COL_COUNTRY = column("country")
COL_DEACTIVATED = column("deactivated")
COL_REACTIVATED = column("reactivated")

DEACTIVATED_ONLY_COUNT = 80  # deactivated, never reactivated (empty Entity Type Code)
REACTIVATED_COUNT = 20  # deactivated then reactivated
WHOLE_COPY_LIMIT = 1_000_000  # bytes; MA plan files above this would need a filter


@dataclass(frozen=True)
class Metro:
    """A sampling area: every ZIP whose centroid lies within ``radius`` miles of the centre."""

    key: str
    lat: float
    lon: float
    radius: float
    cap: int
    hospital_state: str = ""  # if set, every hospital of this state is also kept


METROS: tuple[Metro, ...] = (
    Metro("lower_manhattan_ny", 40.7128, -74.0060, 5, 1000, hospital_state="NY"),
    Metro("austin_tx", 30.2672, -97.7431, 25, 600),
    Metro("chicago_il", 41.8781, -87.6298, 15, 600),
    Metro("los_angeles_ca", 34.0522, -118.2437, 15, 600),
    Metro("miami_fl", 25.7617, -80.1918, 15, 600),
    Metro("portland_me", 43.6591, -70.2568, 25, 600, hospital_state="ME"),
    Metro("manchester_nh", 42.9956, -71.4548, 25, 100),
    Metro("columbia_sc", 34.0007, -81.0348, 25, 100),
)


WHOLE_COPIES: tuple[tuple[str, str], ...] = (
    ("nucc/nucc_taxonomy_251.csv", "nucc_taxonomy_251.csv"),
    ("ma_plans/medicare_plan_finder_2026_plans.csv", "medicare_plan_finder_2026_plans.csv"),
    (
        "ma_plans/medicare_plan_finder_2026_plan_county.csv",
        "medicare_plan_finder_2026_plan_county.csv",
    ),
    ("ma_plans/medicare_plan_finder_2026_zip_plan.csv", "medicare_plan_finder_2026_zip_plan.csv"),
    ("ma_plans/MA_Contract_Directory_2024_08.csv", "MA_Contract_Directory_2024_08.csv"),
    ("ma_plans/ma_star_ratings_contract_2024_2026.csv", "ma_star_ratings_contract_2024_2026.csv"),
)
# Copied whole and gzipped (mtime 0): the plan pages are 1.8 MB as text.
GZIPPED_COPIES: tuple[tuple[str, str], ...] = (
    (
        "ma_plans/medicare_plan_finder_2026_scraped_plan_details.ndjson",
        "medicare_plan_finder_2026_scraped_plan_details.ndjson.gz",
    ),
)
SIZE_LIMITED = frozenset(
    {"medicare_plan_finder_2026_plan_county.csv", "medicare_plan_finder_2026_zip_plan.csv"}
)

Row = list[str]


class NppesKey(NamedTuple):
    """The few NPPES fields needed to decide whether a row goes into the sample."""

    npi: str
    zip5: str | None  # as the indexer reads it (core.geo.zip5)
    country: str
    entity: str
    deactivated: bool
    reactivated: bool


# --------------------------------------------------------------------------- geography


def zip_metros() -> dict[str, str]:
    """ZIP -> key of the first metro whose radius contains the ZIP centroid (the ZIP table the
    indexer geocodes with)."""
    found: dict[str, str] = {}
    for place in sorted(all_zip_places(), key=attrgetter("zip")):
        for metro in METROS:
            if haversine_miles(place.lat, place.lng, metro.lat, metro.lon) <= metro.radius:
                found[place.zip] = metro.key
                break
    return found


# --------------------------------------------------------------------------- NPPES


def scan_nppes(path: Path) -> list[NppesKey]:
    """First pass over NPPES: the selection fields of every row."""
    keys: list[NppesKey] = []
    with read_csv(path) as rows:
        header = next(rows)
        idx = [column_index(header, c) for c in (COL_NPI, COL_ZIP, COL_COUNTRY, COL_ENTITY)]
        deact, react = column_index(header, COL_DEACTIVATED), column_index(header, COL_REACTIVATED)
        for row in rows:
            npi, zip_code, country, entity = (row[i] for i in idx)
            keys.append(
                NppesKey(npi, zip5(zip_code), country, entity, bool(row[deact]), bool(row[react]))
            )
    return keys


def select_metros(keys: list[NppesKey], zip_metro: dict[str, str]) -> dict[str, list[str]]:
    """Per metro, the lowest ``cap`` NPIs with a US practice ZIP inside its radius."""
    by_metro: dict[str, list[str]] = {m.key: [] for m in METROS}
    for key in keys:
        metro = zip_metro.get(key.zip5 or "")
        if metro and key.country in ("", "US"):
            by_metro[metro].append(key.npi)
    caps = {m.key: m.cap for m in METROS}
    return {k: sorted(v)[: caps[k]] for k, v in by_metro.items()}


def select_deactivated(keys: list[NppesKey]) -> tuple[list[str], list[str]]:
    """Lowest NPIs of deactivated-only rows and of deactivated-then-reactivated rows."""
    only = sorted(k.npi for k in keys if k.deactivated and not k.reactivated)
    again = sorted(k.npi for k in keys if k.deactivated and k.reactivated)
    return only[:DEACTIVATED_ONLY_COUNT], again[:REACTIVATED_COUNT]


def collect_rows(path: Path, wanted: set[str]) -> tuple[Row, list[Row]]:
    """Second pass over NPPES: header and the wanted rows, in ascending NPI order."""
    found: dict[str, Row] = {}
    with read_csv(path) as rows:
        header = next(rows)
        npi_col = column_index(header, COL_NPI)
        for row in rows:
            if row[npi_col] in wanted:
                found.setdefault(row[npi_col], row)
    return header, [found[n] for n in sorted(found)]


# --------------------------------------------------------------------------- copies


def copy_whole(raw: Path, out: Path) -> None:
    """Copy the NUCC and Medicare Advantage files unchanged (bytes)."""
    for source, target in WHOLE_COPIES:
        data = (raw / source).read_bytes()
        if target in SIZE_LIMITED and len(data) >= WHOLE_COPY_LIMIT:
            raise SystemExit(f"{source} is {len(data)} B (>= 1 MB): add a row filter here")
        (out / target).write_bytes(data)
    for source, target in GZIPPED_COPIES:
        (out / target).write_bytes(gzip.compress((raw / source).read_bytes(), mtime=0))


def copy_plan_net(raw: Path, out: Path) -> None:
    """The Plan-Net reference implementation's export, every file gzipped as it is (mtime 0)."""
    target = out / PLAN_NET_TARGET
    target.mkdir(exist_ok=True)
    for source in sorted((raw / "plannet_fhir").glob("*.ndjson")):
        with (
            open(target / f"{source.name}.gz", "wb") as handle,
            gzip.GzipFile("", "wb", compresslevel=9, fileobj=handle, mtime=0) as packed,
        ):
            packed.write(source.read_bytes())


# --------------------------------------------------------------------------- main


def count_rows(path: Path) -> int:
    """Data rows (excluding the header) of a plain or gzipped CSV."""
    with read_csv(path) as rows:
        return sum(1 for _ in rows) - 1


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def print_sizes(out: Path) -> None:
    """Rows, bytes and sha256 of every CSV in the output directory, and the total."""
    total = 0
    print("\nOutputs:")
    for path in sorted(p for p in out.iterdir() if p.name.endswith((".csv", ".csv.gz"))):
        size = path.stat().st_size
        total += size
        print(f"  {path.name:45} {count_rows(path):>7} rows {size:>10,} B  {sha256(path)[:16]}")
    print(f"  {'total (data files)':45} {'':>12} {total:>10,} B")


def build_nppes(raw: Path, out: Path, zip_metro: dict[str, str]) -> tuple[set[str], set[str]]:
    """Select and write the NPPES sample; return (sample NPIs, all NPPES NPIs)."""
    path = raw / NPPES_SOURCE
    keys = scan_nppes(path)
    all_npis = {k.npi for k in keys}
    metros = select_metros(keys, zip_metro)
    dac_overlap = dac_npis(raw) & all_npis
    deact_only, reactivated = select_deactivated(keys)
    wanted = set(dac_overlap).union(deact_only, reactivated, *metros.values())
    header, rows = collect_rows(path, wanted)
    newline = line_ending(path)
    write_gzip_csv(out / NPPES_TARGET, newline, [header, *rows])
    report_nppes(keys, newline, metros, dac_overlap, wanted)
    return wanted, all_npis


def report_nppes(
    keys: list[NppesKey],
    newline: str,
    metros: dict[str, list[str]],
    dac_overlap: set[str],
    wanted: set[str],
) -> None:
    """Print how the NPPES sample was assembled."""
    print(f"NPPES source: {len(keys)} rows, newline={newline!r}")
    for metro in METROS:
        print(
            f"  metro {metro.key:22} {len(metros[metro.key]):>5} (cap {metro.cap}, "
            f"{metro.radius:g} mi)"
        )
    kept = [k for k in keys if k.npi in wanted]
    print(f"  DAC NPIs also in NPPES       {len(dac_overlap):>5}")
    for label, test in (
        ("deactivated-only", lambda k: k.deactivated and not k.reactivated),
        ("reactivated", lambda k: k.reactivated),
    ):
        print(
            f"  {label + ' in sample':28} {sum(map(test, kept)):>5}"
            f" (of {sum(map(test, keys))} in source)"
        )
    print(f"  NPPES sample rows (unique)   {len(wanted):>5}")


def report_dac(results: list[DacResult]) -> None:
    for res in results:
        print(
            f"DAC {res.spec.target:35} {res.in_sample:>4} rows of sampled NPIs, "
            f"{len(res.missing_npis)} rows of NPIs absent from NPPES, "
            f"{len(res.ccns)} hospital CCNs"
        )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--raw", type=Path, default=DEFAULT_RAW, help="raw data directory")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    raw, out = args.raw.resolve(), args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    zip_metro = zip_metros()
    sample, all_npis = build_nppes(raw, out, zip_metro)
    results = [subset_dac(raw, out, spec, sample, all_npis) for spec in DAC_SPECS]
    report_dac(results)
    ccns: set[str] = set().union(*(r.ccns for r in results))
    states = {m.hospital_state for m in METROS if m.hospital_state}
    counts, unknown = subset_hospitals(raw, out, ccns, zip_metro, states)
    print(
        f"Hospitals kept by reason: {dict(sorted(counts.items()))}; "
        f"{len(ccns)} DAC CCNs, {unknown} not in the hospital file"
    )
    copy_whole(raw, out)
    copy_plan_net(raw, out)
    print_sizes(out)


if __name__ == "__main__":
    main()
