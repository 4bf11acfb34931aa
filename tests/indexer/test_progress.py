"""Progress of the NPPES pass: rows, rate, share of the file and an ETA, in a log or a bar."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from indexer.load import progress
from indexer.load.progress import LoadProgress, eta_text
from indexer.sources.csvfiles import ReadPosition
from indexer.sources.discovery import SourceFiles
from indexer.sources.nppes import read_nppes
from indexer.sources.rejects import ignore_rejects


def test_eta_is_the_remaining_share_at_the_rate_so_far(tmp_path: Path) -> None:
    path = tmp_path / "npidata.csv"
    path.write_bytes(b"x" * 1000)
    line = LoadProgress(path, ReadPosition(), bar=False).line(50_000, 250, 100.0)
    assert line == "npidata.csv: 50,000 rows, 500 rows/s, 25.0% of the file, ETA 5m00s"
    assert eta_text(2 * 3600 + 65) == "2h01m"


def test_a_log_line_follows_the_real_position_in_the_file(
    sample_sources: SourceFiles, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "LOG_EVERY_S", 0.0)
    monkeypatch.setattr(progress, "CHECK_EVERY_ROWS", 1)
    out = io.StringIO()
    position = ReadPosition()
    path = sample_sources.nppes_file
    tracker = LoadProgress(path, position, bar=False, out=out)
    count = 0
    for count, _ in enumerate(read_nppes(path, ignore_rejects, position), start=1):
        tracker.rows(count)
    lines = out.getvalue().splitlines()
    assert len(lines) == count
    shares = [float(line.split("rows/s, ")[1].split("%")[0]) for line in lines]
    assert shares == sorted(shares) and shares[0] > 0 and shares[-1] <= 100.0
    assert position.bytes_read() == 0  # closed at the end of the file
