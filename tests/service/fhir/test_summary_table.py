"""The checked-in summary table is what its generator writes from the installed fhir.resources."""

from __future__ import annotations

from typing import Any

from service.fhir.render import summary_elements
from service.fhir.render.generate_summary_elements import table


def test_the_table_is_up_to_date() -> None:
    generated: dict[str, Any] = {}
    exec(table(), generated)  # the generator's text, unformatted
    assert generated["SUMMARY"] == summary_elements.SUMMARY
    assert generated["MANDATORY"] == summary_elements.MANDATORY
