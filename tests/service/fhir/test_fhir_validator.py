"""Every resource /fhir serves for the sample and the Plan-Net reference export validates against
its declared Plan-Net profile with no error (HAPI validator, Plan-Net 1.1.0 and US Core 3.1.1).
The resources are paged and validated in a process of its own from the first FHIR test on
(tests.validate_served, the ``served_validation`` fixture): here its verdicts are read."""

from __future__ import annotations

import asyncio
import json

from tests import fhir_validator
from tests.conftest import needs
from tests.service.fhir.conftest import ServedValidation


async def test_every_served_resource_validates(
    served_validation: ServedValidation | None,
) -> None:
    needs(fhir_validator.available())
    assert served_validation is not None
    assert await asyncio.to_thread(served_validation.process.wait) == 0
    result = json.loads(served_validation.out.read_text())
    served, verdicts = result["served"], result["verdicts"]
    assert {key.split("/")[0] for key in served} == set(result["kinds"])
    assert [v["resource"] for v in verdicts] == served
    unprofiled = [v["resource"] for v in verdicts if v["profile"] is None]
    assert unprofiled == []
    failing = {v["resource"]: v["errors"] for v in verdicts if v["errors"]}
    assert failing == {}, f"{len(failing)} of {len(served)} invalid: {failing}"
