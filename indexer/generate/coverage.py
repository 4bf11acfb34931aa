"""``provider-indexer generate-coverage``: a SYNTHETIC coverage file (format in
``indexer.sources.coverage``) linking real NPIs to real Medicare Advantage bid ids by geography.

No public data says which provider is in which plan, so this makes a plausible stand-in: an
active NPPES provider is linked only to plans sold at its practice ZIP, by the rules the plans
index is built with (``indexer.sources.plan_areas``), Part D-only (``S``) contracts excluded.
Every choice is a seeded hash of the NPI (and bid id), not random state: the same inputs and
seed give the same file, and one provider's rows do not depend on any other row. Rows say
``source=synthetic-generator-v1`` and the file starts with a ``#`` comment saying so.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from hashlib import blake2b
from pathlib import Path

from core.geo import lookup_zip, zip5
from indexer.assembly.locations import practice_location
from indexer.sources.coverage import HEADER
from indexer.sources.nppes import NppesRecord, read_nppes
from indexer.sources.plan_areas import PlanArea, read_service_areas
from indexer.sources.plans import PLAN_YEAR, read_plans
from indexer.sources.rejects import ignore_rejects

SOURCE = "synthetic-generator-v1"
MAX_PLANS_PER_PROVIDER = 4
# (effective, termination) pairs; fixed dates so the file does not depend on the day it is made.
_DATES = (
    ("", ""),
    ("", ""),
    ("", ""),
    (f"{PLAN_YEAR}-01-01", ""),
    (f"{PLAN_YEAR}-01-01", f"{PLAN_YEAR}-07-01"),  # terminated mid-year
    (f"{PLAN_YEAR}-12-01", ""),  # starts late in the year
)
_ACCEPTING = ("Y", "Y", "Y", "N", "")


@dataclass(frozen=True)
class CoverageStats:
    rows: int
    providers: int
    plans: int
    out: Path

    def __str__(self) -> str:
        return (
            f"wrote {self.rows:,} synthetic coverage rows for {self.providers:,} providers and "
            f"{self.plans:,} plans to {self.out}"
        )


def _hash(seed: int, *parts: str) -> int:
    text = ":".join((str(seed), *parts)).encode()
    return int.from_bytes(blake2b(text, digest_size=8).digest(), "big")


def _rows(record: NppesRecord, bids: list[str], seed: int) -> list[list[str]]:
    npi = record.npi
    chosen = sorted(bids, key=lambda bid: _hash(seed, npi, bid))
    count = 1 + _hash(seed, npi) % min(MAX_PLANS_PER_PROVIDER, len(chosen))
    location = practice_location(record, pcp_eligible=False)["id"]
    rows = []
    for bid in chosen[:count]:
        h = _hash(seed, npi, bid, "row")
        status = "out_of_network" if h % 5 == 0 else "in_network"
        effective, terminated = _DATES[(h >> 8) % len(_DATES)]
        accepting = _ACCEPTING[(h >> 16) % len(_ACCEPTING)]
        location_id = location if (h >> 24) % 4 == 0 else ""
        rows.append(
            [
                str(PLAN_YEAR),
                bid,
                npi,
                location_id,
                status,
                accepting,
                effective,
                terminated,
                SOURCE,
            ]
        )
    return rows


def _plans_by_zip(areas: dict[str, PlanArea]) -> dict[str, list[str]]:
    by_zip: dict[str, list[str]] = {}
    for bid, area in areas.items():
        for code in area.zips:
            by_zip.setdefault(code, []).append(bid)
    return by_zip


def generate_coverage(
    nppes: Path,
    plans: Path,
    zip_plan: Path | None,
    plan_county: Path | None,
    out: Path,
    *,
    seed: int = 1,
) -> CoverageStats:
    plan_states = {
        plan["bidId"]: plan["states"]
        for plan in read_plans(plans, [], ignore_rejects)
        if plan["bidId"] is not None
    }
    areas = read_service_areas(zip_plan, plan_county, plan_states, ignore_rejects)
    sold_at = _plans_by_zip(areas)
    networked = {bid for bid in plan_states if not bid.startswith("S")}
    rows = providers = 0
    used: set[str] = set()
    with open(out, "w", newline="", encoding="utf-8") as handle:
        handle.write(
            f"# SYNTHETIC plan participation made by provider-indexer generate-coverage ({SOURCE},"
            f" seed {seed}) from {nppes.name}: real NPIs and real {PLAN_YEAR} bid ids matched by"
            " geography, NOT real network data.\n"
        )
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(HEADER)
        for record in read_nppes(nppes, ignore_rejects):
            if not isinstance(record, NppesRecord) or record.country not in ("", "US"):
                continue
            code = zip5(record.postal_code)
            place = lookup_zip(code) if code else None
            if code is None or place is None:
                continue
            bids = sorted(bid for bid in sold_at.get(code, ()) if bid in networked)
            if not bids:
                continue
            provider_rows = _rows(record, bids, seed)
            writer.writerows(provider_rows)
            rows += len(provider_rows)
            providers += 1
            used.update(row[1] for row in provider_rows)
    return CoverageStats(rows=rows, providers=providers, plans=len(used), out=out)
