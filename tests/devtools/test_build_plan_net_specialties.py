"""The committed Plan-Net specialty table is what the generator makes of the guide's package."""

from __future__ import annotations

from devtools.build_plan_net_specialties import DEFAULT_PACKAGE, OUTPUT, render


def test_the_committed_table_is_up_to_date() -> None:
    assert OUTPUT.read_text(encoding="utf-8") == render(DEFAULT_PACKAGE), (
        "run: .venv/bin/python -m devtools.build_plan_net_specialties"
    )
