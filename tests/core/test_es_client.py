"""ELASTICSEARCH_URL: one address or several nodes, comma-separated."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.es_client import node_urls
from service.web.settings import Settings


def test_one_address_is_one_node() -> None:
    assert node_urls("http://127.0.0.1:9200/") == ["http://127.0.0.1:9200"]


def test_several_nodes_are_comma_separated_with_spaces_tolerated() -> None:
    spec = "http://10.0.0.1:9200, https://es-2.internal:9243/ ,http://10.0.0.3:9200,"
    assert node_urls(spec) == [
        "http://10.0.0.1:9200",
        "https://es-2.internal:9243",
        "http://10.0.0.3:9200",
    ]


@pytest.mark.parametrize("spec", ["", " , ", "127.0.0.1:9200", "ftp://host:21", "http://"])
def test_what_is_not_an_address_is_refused_by_name(spec: str) -> None:
    with pytest.raises(ValueError):
        node_urls(spec)


def test_the_service_refuses_a_bad_address_at_start() -> None:
    with pytest.raises(ValidationError, match=r"127\.0\.0\.1:9201"):
        Settings(elasticsearch_url="http://127.0.0.1:9200,127.0.0.1:9201")
