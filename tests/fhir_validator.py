"""The HL7/HAPI FHIR validator (tools/fhir-validator, built by `make install`) run offline over
resources, against the Plan-Net 1.1.0 and US Core 3.1.1 packages the Inferno Plan-Net kit
validates with: one JVM for the lot, each resource checked against its meta.profile (a
CapabilityStatement, which declares none, against base R4).

The JVM reports every message with its severity and the path of the element it is about; an
error or fatal message fails a resource unless it is one of ``EXCUSED``, each matched by that
path and its text together, so a real error elsewhere with a similar text is never swallowed."""

from __future__ import annotations

import json
import os
import re
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
FAILING = ("error", "fatal")

NUCC_SYSTEM = "http://nucc.org/provider-taxonomy"
LANGUAGES = "http://hl7.org/fhir/ValueSet/languages"


@dataclass(frozen=True)
class Message:
    severity: str  # fatal, error, warning or information
    location: str  # the element's path, e.g. PractitionerRole.specialty[0]
    message: str
    id: str | None  # HAPI's message id (I18nConstants)

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


@dataclass(frozen=True)
class Excuse:
    """An error message that is no error in the data: where (the element path) and what (the
    text), both matched whole; ``unless``: the same element has a message matching this too."""

    path: re.Pattern[str]
    message: re.Pattern[str]
    why: str
    unless: re.Pattern[str] | None = None


_SPECIALTIES = r"(PractitionerRole|OrganizationAffiliation|HealthcareService)\.specialty\[\d+\]"
EXCUSED = (
    # The code systems outside FHIR, Plan-Net and US Core: no package holds NUCC and no
    # terminology server is reachable, so the validator says it cannot check the code system,
    # as an error where the binding is required. It still checks the code against the value
    # set's own list (a NUCC code outside it is an error: the canaries show it), and the NUCC
    # codes served come from the NUCC file the indexer loads.
    Excuse(
        re.compile(_SPECIALTIES),
        re.compile(
            "CodeSystem is unknown and can't be validated: "
            f"{re.escape(NUCC_SYSTEM)} for '{re.escape(NUCC_SYSTEM)}#[0-9]{{3}}[0-9A-Z]{{6}}X'"
        ),
        "NUCC is not in any package: the code system cannot be checked, the value set can",
    ),
    # A language is bound *preferred* to the R4 languages value set, whose short list lacks
    # e.g. "vi" and "ht": HAPI passes its terminology service's "not in value set" through as an
    # error, though for a preferred binding it is none. A code HAPI does not know as BCP-47 at
    # all (it says so at the same element) stays an error.
    Excuse(
        re.compile(r"(Practitioner|HealthcareService)\.communication\[\d+\]"),
        re.compile(f'Code "[a-z]{{2,3}}" is not in valueset: {re.escape(LANGUAGES)}'),
        "a valid BCP-47 language outside the preferred binding's short list",
        unless=re.compile("CodeSystem is unknown and can't be validated: urn:ietf:bcp:47 .*"),
    ),
)


@dataclass(frozen=True)
class Verdict:
    resource: str
    profile: str | None
    messages: tuple[Message, ...]

    @property
    def errors(self) -> tuple[Message, ...]:
        """The error and fatal messages, less the excused."""
        return tuple(
            m for m in self.messages if m.severity in FAILING and not _excused(m, self.messages)
        )


def _excused(message: Message, siblings: Iterable[Message]) -> bool:
    for excuse in EXCUSED:
        if excuse.path.fullmatch(message.location) and excuse.message.fullmatch(message.message):
            unless = excuse.unless
            if unless is None or not any(
                s.location == message.location and unless.fullmatch(s.message) for s in siblings
            ):
                return True
    return False


def available() -> str | None:
    """Why the validator cannot run here, or None."""
    if shutil.which("java") is None:
        return "no java on PATH"
    if not (VALIDATOR / "target" / "lib").is_dir():
        return "tools/fhir-validator is not built (make install)"
    return None


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
        self.fed = 0

    def feed(self, resource: dict[str, Any]) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(resource) + "\n")
        self.fed += 1

    def verdicts(self) -> list[Verdict]:
        """Every fed resource's verdict (the JVM prints them once its input has ended)."""
        out, err = self._process.communicate()
        assert self._process.returncode == 0, err[-4000:]
        found = [verdict(json.loads(line)) for line in out.splitlines()]
        assert len(found) == self.fed, f"{self.fed} resources fed, {len(found)} verdicts"
        return found

    def close(self) -> None:
        """Ends the JVM if ``verdicts`` was never asked (a test that failed before)."""
        if self._process.poll() is None:
            self._process.kill()
            self._process.communicate()


def verdict(summary: dict[str, Any]) -> Verdict:
    """One line the JVM printed, read."""
    messages = tuple(
        Message(m["severity"], m["location"], m["message"], m.get("id"))
        for m in summary["messages"]
    )
    return Verdict(summary["resource"], summary.get("profile"), messages)


def validate(resources: Iterable[dict[str, Any]]) -> list[Verdict]:
    run = Validation()
    try:
        for resource in resources:
            run.feed(resource)
        return run.verdicts()
    finally:
        run.close()
