"""The service's settings for the webhook tests: loopback allowed (the receiver listens there),
no delivery loop in the tests' own app (a test runs its rounds, ``Deliverer.run_once``)."""

from __future__ import annotations

import pytest

import tests.conftest as shared
from core.index_contract import IndexNames
from service.web.settings import Settings


@pytest.fixture
def settings(es_url: str, index_names: IndexNames) -> Settings:
    return shared.settings_for(es_url, index_names).model_copy(
        update={"webhook_allow": ["127.0.0.1"], "webhook_timeout_s": 5.0, "webhook_lease_s": 30.0}
    )
