"""Where Elasticsearch is and how to authenticate to it: the service's settings and the
indexer's both extend this, so the two read the same variables the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from elasticsearch import AsyncElasticsearch
from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings

from core.es_client import make_client, node_urls


class ElasticsearchAccess(BaseSettings):
    # One address (a node, or a managed cluster's endpoint) or several nodes, comma-separated
    # (core/es_client.py: how a request moves to another node, why sniffing is off).
    elasticsearch_url: str = Field(
        default="http://127.0.0.1:9200", validation_alias="ELASTICSEARCH_URL"
    )
    # A managed cluster's API key (base64 ``id:key``); ``user:password@`` in the URL works too.
    elasticsearch_api_key: SecretStr | None = Field(
        default=None, validation_alias="ELASTICSEARCH_API_KEY"
    )
    # The CA that signed the nodes' certificates, when it is not a public one.
    elasticsearch_ca_certs: Path | None = Field(
        default=None, validation_alias="ELASTICSEARCH_CA_CERTS"
    )

    @field_validator("elasticsearch_url")
    @classmethod
    def _node_addresses(cls, value: str) -> str:
        node_urls(value)
        return value

    def connect(self, url: str | None = None, **options: Any) -> AsyncElasticsearch:
        """A client for ``url`` (by default ELASTICSEARCH_URL) with these credentials;
        ``options`` as core.es_client.make_client takes them."""
        key = self.elasticsearch_api_key
        return make_client(
            url or self.elasticsearch_url,
            api_key=None if key is None else key.get_secret_value(),
            ca_certs=self.elasticsearch_ca_certs,
            **options,
        )
