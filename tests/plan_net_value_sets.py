"""The NUCC codes the Plan-Net guide's specialty bindings allow, read for the tests straight from
the guide's package (the validator's copy), not through the code that serves them."""

from __future__ import annotations

import json
import tarfile
from collections.abc import Iterable
from functools import cache
from pathlib import Path

PACKAGE = (
    Path(__file__).parent.parent / "tools/fhir-validator/src/main/resources/packages/plannet.tgz"
)


@cache
def value_set(name: str) -> frozenset[str]:
    with tarfile.open(PACKAGE) as package:
        member = package.extractfile(f"package/ValueSet-{name}.json")
        assert member is not None
        compose = json.load(member)["compose"]
    return frozenset(c["code"] for include in compose["include"] for c in include["concept"])


def role_specialties(codes: Iterable[str]) -> set[str]:
    """The codes a PractitionerRole.specialty may carry (IndividualAndGroupSpecialtiesVS)."""
    return set(codes) & value_set("IndividualAndGroupSpecialtiesVS")
