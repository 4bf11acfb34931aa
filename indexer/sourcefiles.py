"""The one description of a load's input files, and how to find them in a directory."""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path


@dataclass(frozen=True)
class SourceFiles:
    nppes: Path  # NPPES npidata_pfile, plain or gzip
    nucc: Path  # NUCC taxonomy CSV
    dac: tuple[Path, ...] = ()  # Doctors & Clinicians / Physician Compare files, any layout
    hospitals: Path | None = None  # CMS Hospital General Information
    plans: Path | None = None  # medicare_plan_finder_<year>_plans.csv
    plan_county: Path | None = None  # plans by county
    zip_plan: Path | None = None  # plans by ZIP
    coverage: tuple[Path, ...] = ()  # coverage files (see indexer.sources.coverage)

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

        return cls(
            nppes=required("npidata_pfile*.csv*"),
            nucc=required("nucc_taxonomy*.csv"),
            dac=every("*dac*.csv*", "*physician_compare*.csv*", "*doctors_and_clinicians*.csv*"),
            hospitals=last("hospital_general_information*.csv*"),
            plans=last("*plan_finder_*_plans.csv*"),
            plan_county=last("*plan_county*.csv*"),
            zip_plan=last("*zip_plan*.csv*"),
            coverage=every("coverage*.csv*"),
        )
