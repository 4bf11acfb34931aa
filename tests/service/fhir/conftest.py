"""The FHIR tests serve the sample with the Plan-Net reference export (``plan_net_sample``,
loaded once per session and read-only) through the shared ``api`` fixture."""

from __future__ import annotations

import pytest

from core.index_contract import IndexNames
from tests.plan_net_rows import PLAN_NET_NAME as PLAN_NET_NAME


@pytest.fixture(scope="session")
def fhir_loaded(plan_net_sample: IndexNames) -> IndexNames:
    return plan_net_sample


@pytest.fixture
def served_names(plan_net_sample: IndexNames) -> IndexNames:
    """The FHIR tests' ``api`` and ``sample_settings`` serve the sample with its Plan-Net export."""
    return plan_net_sample
