"""Finding the sources in a directory by their CMS file names."""

from __future__ import annotations

from pathlib import Path

from indexer.sources.discovery import SourceFiles


def _touch(directory: Path, *names: str) -> None:
    for name in names:
        (directory / name).write_text("x\n")


def test_the_full_nppes_file_is_chosen_over_weekly_files_beside_it(tmp_path: Path) -> None:
    _touch(
        tmp_path,
        "nucc_taxonomy_251.csv",
        "npidata_pfile_20050523-20261109.csv",  # the monthly full file
        "npidata_pfile_20261110-20261116.csv",  # weekly files kept beside it
        "npidata_pfile_20261117-20261123.csv",
    )
    assert SourceFiles.discover(tmp_path).nppes_file.name == "npidata_pfile_20050523-20261109.csv"


def test_without_dates_in_the_names_the_last_one_is_taken(tmp_path: Path) -> None:
    _touch(tmp_path, "nucc_taxonomy_251.csv", "npidata_pfile_a.csv", "npidata_pfile_b.csv")
    assert SourceFiles.discover(tmp_path).nppes_file.name == "npidata_pfile_b.csv"
