"""An independent reading of the NPPES source file for expectations (plain csv.DictReader, no
indexer code), so tests compare the indexer against the file rather than against itself."""

from __future__ import annotations

import csv
import gzip
from datetime import datetime
from pathlib import Path


def nppes_rows(path: Path) -> list[dict[str, str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def _date(value: str) -> datetime | None:
    return datetime.strptime(value, "%m/%d/%Y") if value else None


def is_active(row: dict[str, str]) -> bool:
    deactivated = _date(row["NPI Deactivation Date"])
    reactivated = _date(row["NPI Reactivation Date"])
    if deactivated is not None and (reactivated is None or reactivated < deactivated):
        return False
    return row["Entity Type Code"] in ("1", "2")


def active_rows(path: Path) -> list[dict[str, str]]:
    return [row for row in nppes_rows(path) if is_active(row)]


def coverage_rows(sample_dir: Path) -> list[dict[str, str]]:
    """The rows of the sample's coverage file (comment lines skipped), as written."""
    [path] = sorted(sample_dir.glob("coverage_*.csv"))
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(line for line in handle if not line.startswith("#")))


def in_network_pair(sample_dir: Path) -> tuple[str, str]:
    """A (bid id, NPI) the sample's coverage file lists in network."""
    row = next(r for r in coverage_rows(sample_dir) if r["network_status"] == "in_network")
    return row["bid_id"], row["npi"]


def canonical_bid(text: str) -> str:
    """``H1234-001`` -> ``H1234_001_000``, written here apart from core.plans on purpose."""
    contract, plan, *segment = text.strip().upper().replace("-", "_").split("_")
    return f"{contract}_{plan}_{segment[0] if segment else '000'}"


def taxonomies(row: dict[str, str]) -> dict[str, bool]:
    """Code -> primary, each code once (NPPES repeats a code per licence state), primary if any
    of its slots says so."""
    primary: dict[str, bool] = {}
    for n in range(1, 16):
        code = row[f"Healthcare Provider Taxonomy Code_{n}"]
        if code:
            flagged = row[f"Healthcare Provider Primary Taxonomy Switch_{n}"] == "Y"
            primary[code] = primary.get(code, False) or flagged
    return primary
