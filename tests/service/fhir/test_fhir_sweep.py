"""The exhaustive sweep, ``make fhir-validate`` (PD_FHIR_SWEEP=1): every resource /fhir serves
for the sample with its Plan-Net reference export through the validator, none with an error
(tests/validate_served.py: each search paged to its end, the counties, the ``$export`` lines
search did not serve as they are, the CapabilityStatement; one JVM run, minutes).

``make test`` skips it, saying so (test_fhir_validator.py validates each shape once there).
Asked for, it does not skip: a validator that cannot run is a failure under CI=true (``needs``).
"""

from __future__ import annotations

import os

import pytest

from core.index_contract import IndexNames
from tests import fhir_validator
from tests.conftest import needs
from tests.validate_served import sweep_prefix

SWEEP = "PD_FHIR_SWEEP"


async def test_every_resource_served_validates(es_url: str, fhir_loaded: IndexNames) -> None:
    if os.environ.get(SWEEP) != "1":
        pytest.skip(f"the exhaustive sweep: run by `make fhir-validate` ({SWEEP}=1)")
    needs(fhir_validator.available())
    swept = await sweep_prefix(es_url, fhir_loaded.prefix)
    counted = swept.counted()
    assert all(counted[f"search {kind}"] > 0 for kind in swept.kinds), counted
    counties = [r for _, r in swept.fed if str(r.get("id", "")).startswith("county-")]
    assert counties  # served by read and includes only, so far
    failing = swept.failing()
    assert failing == {}, f"{len(failing)} of {len(swept.verdicts)} invalid: {failing}"
