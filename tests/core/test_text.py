"""The one tokenisation rule (core.text), and that the index's analyzer agrees with it."""

from __future__ import annotations

import random
import uuid

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import index_settings
from core.text import fold, indexed_form, normalize, tokens
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


@pytest.mark.parametrize(
    ("written", "held"),
    [
        ("MICHAEL A RASCATI O.D., P.A.", "MICHAEL A RASCATI OD PA"),
        ("O'Brien-Smith", "OBrien Smith"),
        ("Peña  Muñoz", "Pena Munoz"),
        ("3900 LONG BEACH BLVD", "3900 LONG BEACH BLVD"),
        ("STRAßE ØST", "straße øst"),  # beyond ASCII after folding: lower-cased here
    ],
)
def test_a_search_document_holds_the_words_in_their_own_case(written: str, held: str) -> None:
    assert indexed_form(written) == held


def test_lower_casing_the_held_form_gives_the_normalised_words() -> None:
    alphabet = "aZ09 .,'\u2019`-/&_\tñÅßİﬁØŁ"
    draw = random.Random(35)
    texts = ["".join(draw.choices(alphabet, k=draw.randint(0, 14))) for _ in range(20_000)]
    assert [t for t in texts if indexed_form(t).lower() != normalize(t)] == []


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


async def test_the_search_index_lower_cases_held_forms_into_our_words(
    es: AsyncElasticsearch,
) -> None:
    """The search index's keyword normalizer and its analyzer turn what a search document holds
    into the words the service searches for, for every name, street line and city of the
    sample."""
    rows = active_rows(next(SAMPLE_DIR.glob("npidata_pfile*")))[:1000]
    columns = (
        "Provider Organization Name (Legal Business Name)",
        "Provider Last Name (Legal Name)",
        "Provider First Line Business Practice Location Address",
        "Provider Business Practice Location Address City Name",
    )
    values = [row[column] for row in rows for column in columns if row[column].strip()]
    index = f"test-text-{uuid.uuid4().hex[:8]}"
    await es.indices.create(index=index, settings=index_settings("search"))
    try:
        held = [indexed_form(value) for value in values]
        keywords = [
            (await es.indices.analyze(index=index, normalizer="lowercase_keyword", text=h))[
                "tokens"
            ][0]["token"]
            for h in held[:300]
        ]
        assert keywords == [normalize(value) for value in values[:300]]
        analyzed = await es.indices.analyze(index=index, analyzer="standard", text=held)
        assert [t["token"] for t in analyzed["tokens"]] == [t for v in values for t in tokens(v)]
    finally:
        await es.indices.delete(index=index)
