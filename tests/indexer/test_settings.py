"""The indexer reads its environment only through IndexerSettings; its CLI flags default to it."""

from __future__ import annotations

import pytest

from indexer.cli import _parser
from indexer.settings import IndexerSettings

VARIABLES = ("ELASTICSEARCH_URL", "PD_INDEX_PREFIX", "PD_SHARDS", "PD_REPLICAS")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_defaults(clean_env: pytest.MonkeyPatch) -> None:
    settings = IndexerSettings()
    assert settings.elasticsearch_url == "http://127.0.0.1:9200"
    assert settings.index_prefix == "provider-directory"
    assert (settings.shards, settings.replicas) == (1, 0)


def test_bad_numbers_are_refused(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("PD_SHARDS", "0")
    with pytest.raises(ValueError, match="shards"):
        IndexerSettings()
    clean_env.setenv("PD_SHARDS", "1")
    clean_env.setenv("PD_REPLICAS", "-1")
    with pytest.raises(ValueError, match="replicas"):
        IndexerSettings()


def test_indexer_flags_default_to_its_settings(clean_env: pytest.MonkeyPatch) -> None:
    args = _parser(IndexerSettings()).parse_args(["load"])
    assert (args.es_url, args.prefix, args.shards, args.replicas) == (
        "http://127.0.0.1:9200",
        "provider-directory",
        1,
        0,
    )
    clean_env.setenv("ELASTICSEARCH_URL", "http://127.0.0.1:9201")
    clean_env.setenv("PD_INDEX_PREFIX", "weekly")
    clean_env.setenv("PD_SHARDS", "3")
    clean_env.setenv("PD_REPLICAS", "1")
    args = _parser(IndexerSettings()).parse_args(["load"])
    assert (args.es_url, args.prefix, args.shards, args.replicas) == (
        "http://127.0.0.1:9201",
        "weekly",
        3,
        1,
    )
    flags = ["--es-url", "http://x:1", "--prefix", "p", "load", "--shards", "2"]
    args = _parser(IndexerSettings()).parse_args(flags)
    assert (args.es_url, args.prefix, args.shards) == ("http://x:1", "p", 2)
