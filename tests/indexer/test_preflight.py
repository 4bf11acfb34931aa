"""The disk check before a load: the row estimate, and a refusal that writes nothing."""

from __future__ import annotations

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from indexer import versions
from indexer.load import preflight
from indexer.load.run import LoadError, LoadOptions, SourceFiles, load
from tests.conftest import SampleCopy
from tests.source_rows import nppes_rows


def test_rows_are_estimated_from_the_share_of_the_file_the_first_rows_take(
    sample_sources: SourceFiles, monkeypatch: pytest.MonkeyPatch
) -> None:
    true_count = len(nppes_rows(sample_sources.nppes_file))
    assert preflight.estimated_rows(sample_sources.nppes_file) == true_count  # small: counted
    monkeypatch.setattr(preflight, "SAMPLE_ROWS", true_count // 4)
    estimate = preflight.estimated_rows(sample_sources.nppes_file)
    assert abs(estimate - true_count) / true_count < 0.15


async def test_a_version_that_cannot_fit_is_refused_before_anything_is_written(
    es: AsyncElasticsearch,
    index_names: IndexNames,
    sample_sources: SourceFiles,
    monkeypatch: pytest.MonkeyPatch,
    sample_copy: SampleCopy,
) -> None:
    first = sample_copy.report  # served: the session's load, cloned
    monkeypatch.setattr(preflight, "BYTES_PER_PROVIDER", 10**12)  # a petabyte disk would not do
    with pytest.raises(LoadError, match=r"needs about .* GiB .* are free"):
        await load(es, sample_sources, LoadOptions(names=index_names))
    assert list(await versions.scan(es, index_names)) == [first.version]
    second = await load(es, sample_sources, LoadOptions(names=index_names, disk_check=False))
    assert await versions.current_version(es, index_names) == second.version
