"""Indexer configuration: the only reader of the environment for `provider-indexer`; its CLI
flags take their defaults from here."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from core.change_log import DEFAULT_RETENTION_DAYS
from core.es_settings import ElasticsearchAccess
from core.index_contract import DEFAULT_PREFIX


class IndexerSettings(ElasticsearchAccess):
    """ELASTICSEARCH_URL and its credentials: core/es_settings.py."""

    model_config = SettingsConfigDict(env_prefix="PD_", extra="ignore", frozen=True)

    index_prefix: str = DEFAULT_PREFIX
    shards: int = Field(default=1, ge=1)
    replicas: int = Field(default=0, ge=0)
    replica_wait_s: float = Field(default=900.0, ge=0)
    # How long the change feed keeps a record (indexer.change_log).
    changes_retention_days: int = Field(default=DEFAULT_RETENTION_DAYS, ge=1)
