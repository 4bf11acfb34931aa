"""The cursor walks past Elasticsearch's 10,000-hit window without duplicates or gaps.

The index holds 11,000 providers resampled from the real lower-Manhattan rows of the sample by
the indexer's own generator (real names, addresses and taxonomies, fresh NPIs)."""

from __future__ import annotations

import csv
import gzip
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from indexer.generate.nppes import generate_nppes
from indexer.load.run import LoadOptions, SourceFiles, load
from service.web.app import create_app
from tests.conftest import ApiClient, ClientFactory, settings_for
from tests.service.search.calls import LOWER_MANHATTAN, search
from tests.source_rows import is_active

PROVIDERS = 11_000


def _manhattan_source(sample: Path, out: Path) -> Path:
    """The sample's active rows practising in Manhattan ZIPs (100xx), as an NPPES file."""
    with (
        gzip.open(sample, "rt", encoding="utf-8", newline="") as source,
        open(out, "w", encoding="utf-8", newline="") as target,
    ):
        reader = csv.DictReader(source)
        assert reader.fieldnames
        writer = csv.DictWriter(target, reader.fieldnames, quoting=csv.QUOTE_ALL)
        writer.writeheader()
        for row in reader:
            zip_code = row["Provider Business Practice Location Address Postal Code"]
            if is_active(row) and zip_code.startswith("100"):
                writer.writerow(row)
    return out


@pytest.fixture(scope="module")
async def deep_index(
    es: AsyncElasticsearch, sample_sources: SourceFiles, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[IndexNames]:
    folder = tmp_path_factory.mktemp("deep")
    source = _manhattan_source(sample_sources.nppes_file, folder / "manhattan.csv")
    generated = folder / "npidata_pfile_generated.csv.gz"
    generate_nppes(source, generated, PROVIDERS, seed=3)
    names = IndexNames(f"test-deep-{uuid.uuid4().hex[:8]}")
    await load(es, SourceFiles(nppes=generated, nucc=sample_sources.nucc), LoadOptions(names=names))
    yield names
    await es.indices.delete(index=f"{names.prefix}-*", ignore_unavailable=True)


@pytest.fixture
async def deep_api(aiohttp_client: ClientFactory, es_url: str, deep_index: IndexNames) -> ApiClient:
    return await aiohttp_client(create_app(settings_for(es_url, deep_index)))


async def test_cursor_walks_past_ten_thousand_without_duplicates_or_gaps(
    deep_api: ApiClient, auth_header: dict[str, str]
) -> None:
    where = {"location": LOWER_MANHATTAN, "radius": 20, "facets": False}
    page = await search(deep_api, auth_header, pageSize=100, **where)
    total = page["totalCount"]
    assert total > 10_000
    seen = [r["npis"][0] for r in page["results"]]
    while page["nextCursor"]:
        page = await search(deep_api, auth_header, cursor=page["nextCursor"], pageSize=100)
        assert page["totalCount"] == total
        seen.extend(r["npis"][0] for r in page["results"])
    assert len(seen) == len(set(seen)), "a provider came twice"
    assert len(seen) == total, "a provider was skipped"
    # An offset page ends at the 10,000th result; its cursor carries on from there.
    last = await search(deep_api, auth_header, offset=9_950, pageSize=100, **where)
    assert [r["npis"][0] for r in last["results"]] == seen[9_950:10_000]
    after = await search(deep_api, auth_header, cursor=last["nextCursor"], pageSize=100)
    assert [r["npis"][0] for r in after["results"]] == seen[10_000:10_100]
    too_deep = await deep_api.post(
        "/v2/providers/search", headers=auth_header, json={**where, "offset": 10_000}
    )
    assert too_deep.status == 400
    assert (await too_deep.json())["errors"][0]["field"] == "offset"
