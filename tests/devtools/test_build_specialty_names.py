"""The committed NUCC name table is what the generator makes of the bundled NUCC file."""

from __future__ import annotations

from devtools.build_specialty_names import DEFAULT_NUCC, OUTPUT, render


def test_the_committed_table_is_up_to_date() -> None:
    assert OUTPUT.read_text(encoding="utf-8") == render(DEFAULT_NUCC), (
        "run: .venv/bin/python -m devtools.build_specialty_names"
    )
