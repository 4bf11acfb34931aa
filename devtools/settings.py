"""Settings of the development tools: the only reader of their environment."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent


# auto: ELASTICSEARCH_URL if set, else a Docker engine that can provide the image, else local.
EsMode = Literal["auto", "url", "docker", "local"]


class LauncherSettings(BaseSettings):
    """Where and how the development Elasticsearch node runs (read when needed, not at import)."""

    model_config = SettingsConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    mode: EsMode = Field(default="auto", validation_alias="PD_ES_MODE")
    elasticsearch_url: str | None = Field(default=None, validation_alias="ELASTICSEARCH_URL")
    # None: the official image of the launcher's Elasticsearch version (devtools.docker_node).
    docker_image: str | None = Field(default=None, validation_alias="PD_ES_DOCKER_IMAGE")
    # A first pull of the official image is ~1.3 GB; an unreachable registry fails in milliseconds.
    pull_timeout_s: float = Field(default=600.0, gt=0, validation_alias="PD_ES_PULL_TIMEOUT")
    cache_dir: Path = Field(default=REPO_ROOT / ".cache", validation_alias="PD_CACHE_DIR")
    # The user's cache, for what outlives a checkout (the image's wheels: devtools/wheelhouse.py).
    user_cache_dir: Path = Field(
        default_factory=lambda: Path.home() / ".cache", validation_alias="XDG_CACHE_HOME"
    )
    heap: str = Field(default="1g", pattern=r"^[0-9]+[mgMG]$", validation_alias="PD_ES_HEAP")
    # More JVM options for every node the launcher starts (the tests' nodes: tests/conftest.py).
    jvm_options: str = Field(default="", validation_alias="PD_ES_JVM_OPTIONS")
    # A local cluster (`start --nodes N`): each node's heap, and a name that keeps clusters of
    # several checkouts or test runs apart (their directories and records are named after it).
    cluster_heap: str = Field(
        default="512m", pattern=r"^[0-9]+[mgMG]$", validation_alias="PD_ES_CLUSTER_HEAP"
    )
    cluster_name: str = Field(
        default="dev", pattern=r"^[a-z0-9][a-z0-9-]{0,39}$", validation_alias="PD_ES_CLUSTER_NAME"
    )
    start_timeout_s: float = Field(default=120.0, gt=0, validation_alias="PD_ES_START_TIMEOUT")
    # SIGTERM, then SIGKILL to a node still running this long after.
    stop_timeout_s: float = Field(default=30.0, gt=0, validation_alias="PD_ES_STOP_TIMEOUT")
    java_home: Path | None = Field(
        default=None, validation_alias=AliasChoices("ES_JAVA_HOME", "JAVA_HOME")
    )
    path: str = Field(default="/usr/bin:/bin", validation_alias="PATH")


class DevServerSettings(BaseSettings):
    """`make run`: the port the service listens on."""

    model_config = SettingsConfigDict(extra="ignore", frozen=True)

    port: int = Field(default=8080, ge=1, le=65535, validation_alias="PORT")
