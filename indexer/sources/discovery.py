"""The one description of a load's input files, and how to find them in a directory."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

_RANGE = re.compile(r"_([0-9]{8})-[0-9]{8}")
# The Plan Finder's and the star ratings' file names.
_PLANS = "*plan_finder_*_plans.csv*"
_PLAN_COUNTY = "*plan_county*.csv*"
_ZIP_PLAN = "*zip_plan*.csv*"
_STAR_RATINGS = "*star_ratings*.csv*"
_PLAN_DETAILS = "*plan_details*.ndjson*"


def _first_date(name: str) -> str:
    """The first day a CMS file name says it covers ("99999999" when it says none)."""
    found = _RANGE.search(name)
    return found.group(1) if found else "99999999"


def _last(directory: Path, pattern: str) -> Path | None:
    found = sorted(
        p for p in directory.iterdir() if p.is_file() and fnmatch(p.name.lower(), pattern)
    )
    return found[-1] if found else None


@dataclass(frozen=True)
class PlanFiles:
    """The Plan Finder files read together (a load's, or ``update --plans``'s)."""

    plans: Path  # medicare_plan_finder_<year>_plans.csv
    plan_county: Path | None = None  # plans by county
    zip_plan: Path | None = None  # plans by ZIP
    star_ratings: Path | None = None  # Medicare star ratings by contract and year
    plan_details: Path | None = None  # scraped Plan Finder plan pages (NDJSON)

    @classmethod
    def beside(cls, plans: Path, **named: Path | None) -> PlanFiles:
        """The plan file and the other files of its directory, unless ``named``."""
        patterns = {
            "plan_county": _PLAN_COUNTY,
            "zip_plan": _ZIP_PLAN,
            "star_ratings": _STAR_RATINGS,
            "plan_details": _PLAN_DETAILS,
        }
        return cls(
            plans,
            **{
                name: named.get(name) or _last(plans.parent, pattern)
                for name, pattern in patterns.items()
            },
        )


@dataclass(frozen=True)
class SourceFiles:
    nppes: Path | None  # NPPES npidata_pfile, plain or gzip (None: a Plan-Net directory alone)
    nucc: Path  # NUCC taxonomy CSV
    dac: tuple[Path, ...] = ()  # Doctors & Clinicians / Physician Compare files, any layout
    hospitals: Path | None = None  # CMS Hospital General Information
    plans: Path | None = None  # medicare_plan_finder_<year>_plans.csv
    plan_county: Path | None = None  # plans by county
    zip_plan: Path | None = None  # plans by ZIP
    star_ratings: Path | None = None  # Medicare star ratings by contract and year
    plan_details: Path | None = None  # scraped Plan Finder plan pages (NDJSON)
    coverage: tuple[Path, ...] = ()  # coverage files (see indexer.sources.coverage)
    plan_net: Path | None = None  # a payer's Plan-Net export (indexer.sources.plan_net)
    plan_net_name: str | None = None  # its source name; default: the directory's name

    @property
    def nppes_file(self) -> Path:
        """The NPPES file of sources that have one (a Plan-Net directory alone has none)."""
        if self.nppes is None:
            raise ValueError("these sources have no NPPES file")
        return self.nppes

    @property
    def main(self) -> Path:
        """The file that names a load (its lock, its disk estimate)."""
        found = self.nppes or self.plan_net
        if found is None:
            raise ValueError("a load needs an NPPES file or a Plan-Net directory")
        return found

    @property
    def plan_files(self) -> PlanFiles | None:
        """The Plan Finder files of these sources, when they have a plan file."""
        if self.plans is None:
            return None
        return PlanFiles(
            self.plans, self.plan_county, self.zip_plan, self.star_ratings, self.plan_details
        )

    @classmethod
    def discover(cls, directory: Path) -> SourceFiles:
        """Find the source files in a directory by their CMS/NUCC/Plan Finder file names."""
        names = sorted(path for path in directory.iterdir() if path.is_file())

        def every(*patterns: str) -> tuple[Path, ...]:
            return tuple(p for p in names if any(fnmatch(p.name.lower(), pat) for pat in patterns))

        def last(*patterns: str) -> Path | None:
            found = every(*patterns)
            return found[-1] if found else None

        def required(pattern: str) -> Path:
            found = last(pattern)
            if found is None:
                raise FileNotFoundError(f"no {pattern} in {directory}")
            return found

        def full_nppes() -> Path:
            # CMS names files by the dates they cover: the full file starts in 2005, a weekly
            # one kept beside it starts later and sorts after it, but is not a load's input.
            found = every("npidata_pfile*.csv*")
            if not found:
                raise FileNotFoundError(f"no npidata_pfile*.csv* in {directory}")
            return min(found, key=lambda path: (_first_date(path.name), -found.index(path)))

        return cls(
            nppes=full_nppes(),
            nucc=required("nucc_taxonomy*.csv"),
            dac=every("*dac*.csv*", "*physician_compare*.csv*", "*doctors_and_clinicians*.csv*"),
            hospitals=last("hospital_general_information*.csv*"),
            plans=last(_PLANS),
            plan_county=last(_PLAN_COUNTY),
            zip_plan=last(_ZIP_PLAN),
            star_ratings=last(_STAR_RATINGS),
            plan_details=last(_PLAN_DETAILS),
            coverage=every("coverage*.csv*"),
        )
