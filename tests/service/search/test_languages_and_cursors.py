"""The language filter and facet (from a Doctors & Clinicians file with a languages column written
here, so the expectation is that file), and a cursor whose point in time is gone."""

from __future__ import annotations

import base64
import csv
import json
import uuid
from collections import Counter
from collections.abc import AsyncIterator

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from indexer.load.run import LoadOptions, SourceFiles, load
from tests.conftest import ApiClient, Serve, settings_for
from tests.service.search.calls import LOWER_MANHATTAN, search
from tests.source_rows import active_rows

PRACTICE = "Provider Business Practice Location Address"
PRACTICE_ZIP = f"{PRACTICE} Postal Code"
ADDRESS_COLUMNS = (
    "Provider First Line Business Practice Location Address",
    f"{PRACTICE} City Name",
    f"{PRACTICE} State Name",
    PRACTICE_ZIP,
)
LANGUAGES = ("Spanish", "Spanish, French", "French", "Mandarin")


@pytest.fixture(scope="module")
async def spoken_names(
    es: AsyncElasticsearch,
    sample_sources: SourceFiles,
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[IndexNames, dict[str, tuple[str, ...]]]]:
    """The sample loaded, once for the module's read-only tests, with one more DAC file giving
    languages to Manhattan individuals; the languages given, by NPI."""
    index_names = IndexNames(f"test-spoken-{uuid.uuid4().hex[:8]}")
    tmp_path = tmp_path_factory.mktemp("spoken")
    manhattan = [
        row
        for row in active_rows(sample_sources.nppes_file)
        if row["Entity Type Code"] == "1" and row[PRACTICE_ZIP].startswith("10013")
    ][: 3 * len(LANGUAGES)]
    given = {row["NPI"]: LANGUAGES[i % len(LANGUAGES)] for i, row in enumerate(manhattan)}
    extra = tmp_path / "dac_languages.csv"
    with extra.open("w", newline="") as handle:  # at the provider's own NPPES address
        writer = csv.writer(handle)
        writer.writerow(["NPI", "adr_ln_1", "City/Town", "State", "ZIP Code", "Languages"])
        for row in manhattan:
            address = [row[column] for column in ADDRESS_COLUMNS]
            writer.writerow([row["NPI"], *address, given[row["NPI"]]])
    sources = SourceFiles(**{**vars(sample_sources), "dac": (*sample_sources.dac, extra)})
    try:
        await load(es, sources, LoadOptions(names=index_names))
        yield (
            index_names,
            {npi: tuple(lang.strip() for lang in langs.split(",")) for npi, langs in given.items()},
        )
    finally:
        await es.indices.delete(
            index=f"{index_names.prefix}-*", ignore_unavailable=True, allow_no_indices=True
        )


@pytest.fixture
def spoken(
    spoken_names: tuple[IndexNames, dict[str, tuple[str, ...]]],
) -> dict[str, tuple[str, ...]]:
    return spoken_names[1]


@pytest.fixture
async def spoken_api(
    serve: Serve, es_url: str, spoken_names: tuple[IndexNames, dict[str, tuple[str, ...]]]
) -> ApiClient:
    """The service over the sample loaded with languages (``spoken``)."""
    return await serve(settings_for(es_url, spoken_names[0]))


async def test_language_filter_and_facet(
    spoken_api: ApiClient, spoken: dict[str, tuple[str, ...]], auth_header: dict[str, str]
) -> None:
    api = spoken_api
    where = {"location": LOWER_MANHATTAN, "radius": 5, "pageSize": 100}
    expected = Counter(lang for langs in spoken.values() for lang in langs)
    for language in expected:
        page = await search(api, auth_header, language=language.lower(), **where)
        npis = {r["npis"][0] for r in page["results"]}
        assert npis == {npi for npi, langs in spoken.items() if language in langs}, language
        assert all(language in r["languages"] for r in page["results"])
        said = await search(api, auth_header, query=f"{language} speaking", **where)
        assert {r["npis"][0] for r in said["results"]} == npis, language
        assert said["interpretedQuery"]["languageMode"] == "filter"
    spanish = await search(api, auth_header, query="habla español", **where)
    assert [m["language"] for m in spanish["interpretedQuery"]["languages"]] == ["Spanish"]
    assert {r["npis"][0] for r in spanish["results"]} == {
        npi for npi, langs in spoken.items() if "Spanish" in langs
    }
    everyone = await search(api, auth_header, facets=True, **where)
    facet = {f["value"]: f["count"] for f in everyone["facets"]["language"]}
    assert facet == dict(expected)


async def test_a_cursor_whose_point_in_time_is_gone_is_404_cursor_expired(
    api: ApiClient, es: AsyncElasticsearch, auth_header: dict[str, str]
) -> None:
    first = await search(api, auth_header, location=LOWER_MANHATTAN, pageSize=5, facets=False)
    second = await search(api, auth_header, cursor=first["nextCursor"], pageSize=5)
    cursor = second["nextCursor"]
    state = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    await es.close_point_in_time(id=state["pit"])
    response = await api.post("/v2/providers/search", json={"cursor": cursor}, headers=auth_header)
    assert response.status == 404
    problem = await response.json()
    assert problem["code"] == "cursor_expired"
    assert problem["errors"][0]["field"] == "cursor"


async def test_a_language_nobody_lists_is_said_not_just_no_match(
    spoken_api: ApiClient, spoken: dict[str, tuple[str, ...]], auth_header: dict[str, str]
) -> None:
    api = spoken_api
    where = {"location": LOWER_MANHATTAN, "radius": 5}
    listed = {lang for langs in spoken.values() for lang in langs}
    assert "German" not in listed and "Spanish" in listed
    german = await search(api, auth_header, query="family doctor german speaking", **where)
    assert german["totalCount"] == 0
    assert german["noResults"]["reason"] == "language_not_listed"
    assert german["noResults"]["unlistedLanguages"] == ["German"]
    by_filter = await search(api, auth_header, query="smith", language="Klingon", **where)
    assert by_filter["noResults"]["unlistedLanguages"] == ["Klingon"]
    # a listed language that simply has no match here is not said to be unlisted
    far = {"location": {"lat": 47.6, "lng": -122.3}, "radius": 1}
    spanish = await search(api, auth_header, query="spanish speaking cardiologist", **far)
    assert spanish["totalCount"] == 0 and spanish["noResults"]["reason"] != "language_not_listed"


@pytest.mark.parametrize("junk", ["!*", "=", " ", "\u00e9"])
async def test_a_cursor_with_characters_outside_base64url_is_refused(
    api: ApiClient, auth_header: dict[str, str], junk: str
) -> None:
    """A real cursor with a character no cursor holds put in its middle: refused (the lenient
    base64 decoder would drop the character and answer the page as if the cursor were whole)."""
    first = await search(api, auth_header, location=LOWER_MANHATTAN, pageSize=5, facets=False)
    cursor = first["nextCursor"]
    tampered = cursor[:8] + junk + cursor[8:]
    response = await api.post(
        "/v2/providers/search", json={"cursor": tampered}, headers=auth_header
    )
    problem = await response.json()
    assert response.status in (400, 404), problem
    assert problem["code"] in ("cursor_not_found", "validation_error"), problem
    assert problem["errors"][0]["field"] == "cursor"
