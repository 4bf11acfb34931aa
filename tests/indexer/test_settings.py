"""The indexer reads its environment only through IndexerSettings; its CLI flags default to it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from indexer.cli.parsers import parser
from indexer.settings import IndexerSettings

VARIABLES = ("ELASTICSEARCH_URL", "PD_INDEX_PREFIX", "PD_SHARDS", "PD_REPLICAS")
SettingsFrom = Callable[..., IndexerSettings]


@pytest.fixture
def settings_from(monkeypatch: pytest.MonkeyPatch) -> SettingsFrom:
    """IndexerSettings read from an environment holding only the given indexer variables."""

    def read(**env: str) -> IndexerSettings:
        for name in VARIABLES:
            monkeypatch.delenv(name, raising=False)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return IndexerSettings()

    return read


def test_defaults(settings_from: SettingsFrom) -> None:
    settings = settings_from()
    assert settings.elasticsearch_url == "http://127.0.0.1:9200"
    assert settings.index_prefix == "provider-directory"
    assert (settings.shards, settings.replicas) == (1, 0)


def test_bad_numbers_are_refused(settings_from: SettingsFrom) -> None:
    with pytest.raises(ValueError, match="shards"):
        settings_from(PD_SHARDS="0")
    with pytest.raises(ValueError, match="replicas"):
        settings_from(PD_REPLICAS="-1")


def test_flags_default_to_the_settings(settings_from: SettingsFrom) -> None:
    args = parser(settings_from()).parse_args(["load"])
    assert (args.es_url, args.prefix, args.shards, args.replicas) == (
        "http://127.0.0.1:9200",
        "provider-directory",
        1,
        0,
    )
    settings = settings_from(
        ELASTICSEARCH_URL="http://127.0.0.1:9201",
        PD_INDEX_PREFIX="weekly",
        PD_SHARDS="3",
        PD_REPLICAS="1",
    )
    args = parser(settings).parse_args(["load"])
    assert (args.es_url, args.prefix, args.shards, args.replicas) == (
        "http://127.0.0.1:9201",
        "weekly",
        3,
        1,
    )
    flags = ["--es-url", "http://x:1", "--prefix", "p", "load", "--shards", "2"]
    args = parser(settings).parse_args(flags)
    assert (args.es_url, args.prefix, args.shards) == ("http://x:1", "p", 2)
