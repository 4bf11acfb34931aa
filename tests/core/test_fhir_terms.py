"""The ZIP terms made without normalize (core.fhir_terms.postal_terms) are normalize's."""

from __future__ import annotations

import pytest

from core.fhir_terms import postal_terms
from core.text import normalize
from indexer.assembly.locations import format_zip
from indexer.load.run import SourceFiles
from tests.source_rows import nppes_rows


def _normalised(zip_code: str) -> list[str]:
    """The rule: the ZIP and its first five characters, normalised, each once."""
    return list(dict.fromkeys(t for t in (normalize(zip_code), normalize(zip_code[:5])) if t))


def test_every_sample_zip_has_normalize_terms(sample_sources: SourceFiles) -> None:
    written = {
        format_zip(row["Provider Business Practice Location Address Postal Code"])
        for row in nppes_rows(sample_sources.nppes_file)
    }
    zips = [zip_code for zip_code in written if zip_code]
    assert any("-" in zip_code for zip_code in zips) and any(len(z) == 5 for z in zips)
    for zip_code in zips:
        assert postal_terms(zip_code) == _normalised(zip_code), zip_code


FULL_WIDTH_ZIP = "\uff10\uff14\uff11\uff10\uff11"  # "04101" in full-width digits


@pytest.mark.parametrize(
    "zip_code",
    ["04101", "04101-2345", "0410", "04101-234", "04101 2345", "K1A 0B1", FULL_WIDTH_ZIP],
)
def test_other_shapes_keep_normalize_terms(zip_code: str) -> None:
    assert postal_terms(zip_code) == _normalised(zip_code)
