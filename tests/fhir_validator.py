"""The HL7/HAPI FHIR validator (tools/fhir-validator, built by `make install`) run offline over
resources, against the Plan-Net 1.1.0 and US Core 3.1.1 packages the Inferno Plan-Net kit
validates with: one JVM for the lot, each resource checked against its meta.profile."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
VALIDATOR = REPO / "tools" / "fhir-validator"
MAIN_CLASS = "dev.providerdirectory.validator.Main"
# One run of some thousands of resources does not pay back the C2 compiler's work; the
# measurements are in tools/fhir-validator/README.md.
JVM_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
PACKAGES = ("plannet.tgz", "us-core-3.1.1.tgz")

# Code systems outside FHIR, Plan-Net and US Core: no package holds them and no terminology
# server is reachable, so the validator cannot tell a good code from a bad one and says so as an
# error. The NUCC codes served come from the NUCC file the indexer loads, so the message is about
# the validator's reach, not the data.
UNCHECKABLE_SYSTEMS = ("http://nucc.org/provider-taxonomy",)
# A language (Practitioner.communication, HealthcareService.communication) is bound *preferred*
# to the R4 languages value set, whose short list lacks e.g. "vi" and "ht": HAPI passes its
# terminology service's "not in value set" through as an error, though for a preferred binding
# it is none (BCP-47 codes outside the list are valid).
PREFERRED_VALUE_SETS = ("http://hl7.org/fhir/ValueSet/languages",)


@dataclass(frozen=True)
class Verdict:
    resource: str
    profile: str | None
    errors: tuple[str, ...]


def available() -> str | None:
    """Why the validator cannot run here, or None."""
    if shutil.which("java") is None:
        return "no java on PATH"
    if not (VALIDATOR / "target" / "lib").is_dir():
        return "tools/fhir-validator is not built (make install)"
    return None


def _not_an_error(message: dict[str, str]) -> bool:
    text = message["message"]
    unknown = (
        f"CodeSystem is unknown and can't be validated: {s} for " for s in UNCHECKABLE_SYSTEMS
    )
    preferred = (f"is not in valueset: {v}" for v in PREFERRED_VALUE_SETS)
    return any(text.startswith(u) for u in unknown) or (
        text.startswith("Code ") and any(text.endswith(p) for p in preferred)
    )


class Validation:
    """One JVM validating resources as they are fed (the caller may still be fetching the rest):
    ``feed`` each, then ``verdicts`` once, in the order fed."""

    def __init__(self) -> None:
        classpath = os.pathsep.join(
            [str(VALIDATOR / "target" / "classes"), str(VALIDATOR / "target" / "lib" / "*")]
        )
        self._process = subprocess.Popen(
            ["java", *JVM_OPTIONS, "-cp", classpath, MAIN_CLASS, *PACKAGES],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def feed(self, resource: dict[str, Any]) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(resource) + "\n")

    def verdicts(self) -> list[Verdict]:
        """Every fed resource's verdict (the JVM prints them once its input has ended)."""
        out, err = self._process.communicate()
        assert self._process.returncode == 0, err[-4000:]
        return [_verdict(json.loads(line)) for line in out.splitlines()]


def _verdict(summary: dict[str, Any]) -> Verdict:
    errors = tuple(
        f"{e['location']}: {e['message']}" for e in summary["errors"] if not _not_an_error(e)
    )
    return Verdict(summary["resource"], summary["profile"], errors)


def validate(resources: Iterable[dict[str, Any]]) -> list[Verdict]:
    run = Validation()
    for resource in resources:
        run.feed(resource)
    return run.verdicts()
