"""The one tokenisation rule (core.text), and that the index's analyzer agrees with it."""

from __future__ import annotations

import pytest
from elasticsearch import AsyncElasticsearch

from core.text import fold, normalize, tokens
from tests.conftest import SAMPLE_DIR
from tests.source_rows import active_rows


@pytest.mark.parametrize(
    ("written", "indexed"),
    [
        ("MICHAEL A RASCATI O.D., P.A.", "michael a rascati od pa"),
        ("Acme Health L.L.C.", "acme health llc"),
        ("Acme Health LLC", "acme health llc"),
        ("O'Brien-Smith", "obrien smith"),
        ("Children\u2019s Hospital", "childrens hospital"),
        ("Holland Obstetrics & Gynecology", "holland obstetrics gynecology"),
        ("Peña  Muñoz", "pena munoz"),
        ("ob/gyn", "ob gyn"),
        ("J.Smith", "j smith"),
        ("  ", ""),
    ],
)
def test_written_forms_become_the_indexed_words(written: str, indexed: str) -> None:
    assert normalize(written) == indexed
    assert tokens(written) == indexed.split()


def test_folding_keeps_letters_and_drops_marks() -> None:
    assert fold("Ångström ﬁne") == "Angstrom fine"


async def test_the_index_analyzer_finds_exactly_our_words(es: AsyncElasticsearch) -> None:
    """The mapping's analyzer applied to normalised names gives back the same words, for every
    organisation and person name of the sample: one rule, not two that drift."""
    rows = active_rows(next(SAMPLE_DIR.glob("npidata_pfile*")))
    names = [
        row["Provider Organization Name (Legal Business Name)"]
        or f"{row['Provider First Name']} {row['Provider Last Name (Legal Name)']}"
        for row in rows[:1500]
    ]
    analyzed = await es.indices.analyze(analyzer="standard", text=[normalize(n) for n in names])
    assert [t["token"] for t in analyzed["tokens"]] == [t for n in names for t in tokens(n)]
