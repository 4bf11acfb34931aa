"""Every resource /fhir serves for the sample and the Plan-Net reference export validates against
its declared Plan-Net profile with no error (HAPI validator, Plan-Net 1.1.0 and US Core 3.1.1)."""

from __future__ import annotations

from tests import fhir_validator
from tests.conftest import ApiClient, needs
from tests.service.fhir import fhir_rows as F


async def test_every_served_resource_validates(api: ApiClient) -> None:
    needs(fhir_validator.available())
    metadata = await F.fetch(api, "/fhir/metadata")
    kinds = [entry["type"] for entry in metadata["rest"][0]["resource"]]
    served: set[str] = set()
    run = fhir_validator.Validation()  # validating while the rest is fetched
    for kind in kinds:
        for page in await F.walk(api, kind, [], count=500):
            for entry in page.get("entry", []):
                resource = entry["resource"]
                key = f"{resource['resourceType']}/{resource['id']}"
                if key not in served:
                    served.add(key)
                    run.feed(resource)
    assert {key.split("/")[0] for key in served} == set(kinds)
    verdicts = run.verdicts()
    assert len(verdicts) == len(served)
    unprofiled = [v.resource for v in verdicts if v.profile is None]
    assert unprofiled == []
    failing = {v.resource: v.errors for v in verdicts if v.errors}
    assert failing == {}, f"{len(failing)} of {len(served)} invalid: {failing}"
