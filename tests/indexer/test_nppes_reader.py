"""The NPPES reader on the real sample rows and on the header/encoding variants CMS has shipped."""

from __future__ import annotations

import csv
import gzip
import io
from collections import Counter
from pathlib import Path
from typing import Literal

import pytest

from indexer.load.run import SourceFiles
from indexer.sources.nppes import Deactivated, NppesRecord, read_nppes
from indexer.sources.rejects import ignore_rejects
from tests.source_rows import is_active, nppes_rows


def _write(
    path: Path,
    header: list[str],
    rows: list[list[str]],
    encoding: str = "utf-8",
    bom: bool = False,
    compress: bool = False,
    quoting: Literal[0, 1, 2, 3] = csv.QUOTE_ALL,
) -> Path:
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=quoting, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    data = ("\ufeff" if bom else "").encode(encoding) + buffer.getvalue().encode(encoding)
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


@pytest.fixture(scope="module")
def real_rows(sample_sources: SourceFiles) -> tuple[list[str], list[dict[str, str]]]:
    rows = nppes_rows(sample_sources.nppes_file)
    return list(rows[0].keys()), rows


def test_every_sample_row_is_classified_like_the_source(sample_sources: SourceFiles) -> None:
    source = nppes_rows(sample_sources.nppes_file)
    rejected: list[tuple[str, int, str, str]] = []
    read = list(read_nppes(sample_sources.nppes_file, lambda *r: rejected.append(r)))
    assert len(read) == len(source) and rejected == []
    kinds = Counter(type(row).__name__ for row in read)
    assert kinds["NppesRecord"] == sum(is_active(row) for row in source)
    assert kinds["Deactivated"] > 0
    for row, parsed in zip(source, read, strict=True):
        assert parsed.npi == row["NPI"]


def test_renamed_and_missing_columns(
    tmp_path: Path, real_rows: tuple[list[str], list[dict[str, str]]]
) -> None:
    header, rows = real_rows
    active = [row for row in rows if is_active(row) and row["Provider Sex Code"]][:20]
    # Older files: "Provider Gender Code" and no "Certification Date" column.
    old_header = [
        "Provider Gender Code" if h == "Provider Sex Code" else h
        for h in header
        if h != "Certification Date"
    ]
    old_rows = [[row[h] for h in header if h != "Certification Date"] for row in active]
    path = _write(tmp_path / "old.csv", old_header, old_rows)
    parsed = [r for r in read_nppes(path, ignore_rejects) if isinstance(r, NppesRecord)]
    assert [r.sex for r in parsed] == [row["Provider Sex Code"] for row in active]


@pytest.mark.parametrize(
    ("encoding", "bom", "compress", "quoting"),
    [
        ("utf-8", True, False, csv.QUOTE_ALL),
        ("utf-8", False, True, csv.QUOTE_MINIMAL),
        ("latin-1", False, False, csv.QUOTE_MINIMAL),
    ],
)
def test_encodings_bom_gzip_and_quoting(
    tmp_path: Path,
    real_rows: tuple[list[str], list[dict[str, str]]],
    encoding: str,
    bom: bool,
    compress: bool,
    quoting: Literal[0, 1, 2, 3],
) -> None:
    header, rows = real_rows
    active = [dict(row) for row in rows if is_active(row)][:5]
    active[0]["Provider Last Name (Legal Name)"] = "PEÑA"
    path = _write(
        tmp_path / "variant.csv",
        header,
        [[r[h] for h in header] for r in active],
        encoding=encoding,
        bom=bom,
        compress=compress,
        quoting=quoting,
    )
    parsed = [r for r in read_nppes(path, ignore_rejects) if isinstance(r, NppesRecord)]
    assert [r.npi for r in parsed] == [row["NPI"] for row in active]
    assert parsed[0].last_name == "PEÑA"


def test_short_dates_and_bad_rows(
    tmp_path: Path, real_rows: tuple[list[str], list[dict[str, str]]]
) -> None:
    header, rows = real_rows
    good, bad_npi, bad_date, deactivated = (dict(r) for r in [r for r in rows if is_active(r)][:4])
    good["Provider Enumeration Date"] = "8/31/07"
    bad_npi["NPI"] = "1234567890"
    bad_date["Last Update Date"] = "31-31-2024"
    deactivated["NPI Deactivation Date"] = "1/2/24"
    path = _write(
        tmp_path / "mixed.csv",
        header,
        [[r[h] for h in header] for r in (good, bad_npi, bad_date, deactivated)],
    )
    rejected: list[tuple[str, int, str, str]] = []
    parsed = list(read_nppes(path, lambda *r: rejected.append(r)))
    assert isinstance(parsed[0], NppesRecord)
    assert parsed[0].enumeration_date is not None
    assert parsed[0].enumeration_date.isoformat() == "2007-08-31"
    assert rejected == [
        ("mixed.csv", 2, "1234567890", "invalid_npi"),
        ("mixed.csv", 3, bad_date["NPI"], "invalid_date"),
    ]
    assert isinstance(parsed[1], Deactivated)
    assert [p.row_number for p in parsed] == [1, 4]


def test_not_an_nppes_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "other.csv", ["a", "b"], [["1", "2"]])
    with pytest.raises(ValueError, match="not an NPPES"):
        list(read_nppes(path, ignore_rejects))


def test_more_fields_than_the_header_and_a_truncated_row(
    tmp_path: Path, real_rows: tuple[list[str], list[dict[str, str]]]
) -> None:
    header, rows = real_rows
    first, second = [r for r in rows if is_active(r)][:2]
    long_row = [first[h] for h in header] + ["surplus"]
    cut = header.index("Provider Business Practice Location Address Postal Code")
    short_row = [second[h] for h in header][: cut + 1]
    parsed = list(
        read_nppes(_write(tmp_path / "ragged.csv", header, [long_row, short_row]), ignore_rejects)
    )
    assert [type(p) for p in parsed] == [NppesRecord, NppesRecord]
    assert isinstance(parsed[1], NppesRecord)
    assert parsed[1].postal_code == second[header[cut]]
    assert parsed[1].taxonomies == ()
