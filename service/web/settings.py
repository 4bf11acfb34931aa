"""Service configuration: the only reader of the environment (prefix ``PD_``), with
core/es_settings.py, which it extends."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from core.es_settings import ElasticsearchAccess
from core.index_contract import DEFAULT_PREFIX

DEVELOPMENT_JWT_SECRET = "development-only-secret-never-use-in-production-0123456789"
ALL_SCOPES = ("providers:read", "coverage:read", "watches:write")


class Settings(ElasticsearchAccess):
    """ELASTICSEARCH_URL and its credentials: core/es_settings.py."""

    model_config = SettingsConfigDict(
        env_prefix="PD_", extra="ignore", frozen=True, populate_by_name=True
    )

    environment: Literal["development", "test", "production"] = "development"
    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=1, le=65535)

    index_prefix: str = DEFAULT_PREFIX
    # Below 1 s so a hung node is a 503 within a second; searches take ~5-100 ms (BENCHMARKS.md).
    # A timeout is not retried, so this is also the longest an answer waits on Elasticsearch.
    es_request_timeout_s: float = Field(default=0.9, gt=0)
    # Retries of fast failures only (a refused connection, 502/503/504), each on another node
    # when there is one: two cover a lost node and a coordinating node that lost a shard copy.
    es_max_retries: int = Field(default=2, ge=0, le=5)

    jwt_algorithms: list[str] = Field(default_factory=lambda: ["HS256"])
    jwt_secret: str | None = DEVELOPMENT_JWT_SECRET
    jwt_public_key_file: Path | None = None
    jwt_jwks_file: Path | None = None
    jwt_issuer: str = "provider-directory"
    jwt_audience: str = "provider-directory-api"
    jwt_leeway_s: int = Field(default=30, ge=0, le=300)
    token_ttl_s: int = Field(default=3600, gt=0)

    max_body_bytes: int = Field(default=64 * 1024, gt=0)

    # Per token subject, per process (see service/ratelimit.py); 0 switches limiting off.
    rate_limit_per_s: float = Field(default=100.0, ge=0)
    rate_limit_burst: int = Field(default=200, ge=1)
    metrics_enabled: bool = True
    sandbox: bool = False
    # CMS requires provider directory APIs to be public: the FHIR API reads without a token
    # (rate-limited per client address) unless this is off; a bearer token works either way.
    fhir_anonymous: bool = True
    # The FHIR API's absolute root as clients reach it (behind a proxy); else the request's.
    fhir_base_url: str | None = None
    # Bulk export: the documents one output file holds (a slice of its type), and the hits a
    # file is streamed by (what one file request holds in memory).
    export_hits_per_file: int = Field(default=50_000, ge=1)
    export_page_size: int = Field(default=1_000, ge=1, le=10_000)

    # Webhooks (service/watches). A watch's URL may not reach a loopback, private, link-local or
    # other non-public address unless its host, or the address, is listed here (comma-separated
    # host names, addresses or networks: "127.0.0.1,receiver.internal,10.0.0.0/8"; "*" allows
    # every host, for a deployment whose egress is fenced elsewhere).
    webhook_allow: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # Off: a URL's host must be an address or an allowed name, never looked up (air-gapped).
    webhook_resolve_names: bool = True
    # Whether this process delivers webhooks (any number share the work through leases).
    webhook_delivery: bool = True
    webhook_poll_s: float = Field(default=2.0, gt=0, le=60)
    webhook_timeout_s: float = Field(default=10.0, gt=0, le=60)
    # How long a process holds a watch it delivers to; another takes it over after that.
    webhook_lease_s: float = Field(default=60.0, ge=1, le=3600)
    webhook_concurrency: int = Field(default=16, ge=1, le=256)

    @field_validator("webhook_allow", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @model_validator(mode="after")
    def _refuse_development_secret(self) -> Settings:
        if self.environment != "development" and self.jwt_secret == DEVELOPMENT_JWT_SECRET:
            raise ValueError(
                "PD_JWT_SECRET is the development secret: set a real secret (or unset it and "
                "use PD_JWT_PUBLIC_KEY_FILE / PD_JWT_JWKS_FILE) outside development"
            )
        if self.webhook_lease_s <= self.webhook_timeout_s:
            raise ValueError("PD_WEBHOOK_LEASE_S must exceed PD_WEBHOOK_TIMEOUT_S")
        if "none" in (alg.lower() for alg in self.jwt_algorithms):
            raise ValueError("the 'none' algorithm can never be allowed")
        return self
