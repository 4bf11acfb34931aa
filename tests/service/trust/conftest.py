"""The trust tests' ``api`` serves the NPPES sample with a Plan-Net export of it that the
generator filled with known faults (``faulty_sample``, tests/conftest.py)."""

from __future__ import annotations

import pytest

from core.index_contract import IndexNames
from tests.conftest import FaultySample


@pytest.fixture
def served_names(faulty_sample: FaultySample) -> IndexNames:
    return faulty_sample.names
