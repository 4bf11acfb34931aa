"""An independent reading of the NPPES source file for expectations (plain csv.DictReader, no
indexer code), so tests compare the indexer against the file rather than against itself."""

from __future__ import annotations

import csv
import functools
import gzip
import math
import re
import unicodedata
from datetime import date, datetime
from pathlib import Path

import zipcodes

EARTH_RADIUS_MILES = 3958.7613


def nppes_rows(path: Path) -> list[dict[str, str]]:
    """The file's rows, each a fresh dict the caller may change."""
    return [dict(row) for row in _parsed(path, path.stat().st_mtime_ns)]


@functools.lru_cache(maxsize=8)
def _parsed(path: Path, _modified: int) -> tuple[dict[str, str], ...]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8-sig", newline="") as handle:
        return tuple(csv.DictReader(handle))


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


def zip_centroid(postal_code: str) -> tuple[float, float, str | None] | None:
    """(lat, lng, county) of a US ZIP or ZIP+4, read straight from the ``zipcodes`` package
    (not through core.zips); None for a code that is not US-shaped, unknown, or listed without
    coordinates (the package's "0", "0")."""
    digits = postal_code.replace("-", "").strip()
    if len(digits) not in (5, 9) or not digits.isdigit():
        return None
    found = zipcodes.matching(digits[:5])  # type: ignore[no-untyped-call]
    if not found:
        return None
    entry = found[0]
    lat, lng = float(entry["lat"] or 0), float(entry["long"] or 0)
    return None if (lat, lng) == (0.0, 0.0) else (lat, lng, entry.get("county") or None)


def words(text: str) -> str:
    """Searchable text as the API documents its reading (search words, FHIR strings), written
    here apart from core.text: accents and compatibility forms folded, lower case, apostrophes
    inside words dropped, the dots of initialisms joined ("O.D." is "od"), anything else that is
    not a letter or digit a space between words."""
    decomposed = unicodedata.normalize("NFKD", text)
    folded = "".join(c for c in decomposed if not unicodedata.combining(c)).lower()
    folded = re.sub(r"(?<=[^\W_])['\u2019\u02bc`](?=[^\W_])", "", folded)
    folded = re.sub(
        r"(?<![^\W_])(?:[^\W_]\.)+[^\W_]?(?![^\W_])", lambda m: m[0].replace(".", ""), folded
    )
    return " ".join(re.split(r"[\W_]+", folded)).strip()


def in_force(row: dict[str, str], day: date) -> bool:
    """A coverage row (as the file writes it) is in force on ``day``: from its effective date
    (inclusive; none: always was) to its termination date (exclusive; none: open-ended)."""
    start, end = row["effective_date"], row["termination_date"]
    return (not start or date.fromisoformat(start) <= day) and (
        not end or day < date.fromisoformat(end)
    )


def miles(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Great-circle (haversine) miles between two (lat, lng) points, written here independently
    of the service's distance."""
    lat1, lng1, lat2, lng2 = map(math.radians, (*a, *b))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lng2 - lng1) / 2) ** 2
    )
    return 2 * EARTH_RADIUS_MILES * math.asin(math.sqrt(h))


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
