"""The parts of a provider and of its locations as stored and answered (core.documents):
specialties, affiliations, notes on what a source published wrong, addresses, opening hours."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict  # pydantic needs it for TypedDicts on Python < 3.12

from core.quality import QualityCode, Reason

CLOSED = ConfigDict(extra="forbid")  # every answered shape is closed (core.documents)


@with_config(CLOSED)
class Specialty(TypedDict):
    code: Annotated[str, Field(description="NUCC taxonomy code")]
    displayName: str | None
    grouping: str | None
    classification: str | None
    specialization: str | None
    primary: bool
    licenseNumber: str | None
    licenseState: str | None


@with_config(CLOSED)
class GroupAffiliation(TypedDict):
    name: str
    pacId: str | None


@with_config(CLOSED)
class HospitalAffiliation(TypedDict):
    ccn: Annotated[str, Field(description="CMS Certification Number")]
    name: str | None


@with_config(CLOSED)
class DataQualityNote(TypedDict):
    """Something wrong in what a source published, kept as it was published: an NPI that fails
    its check digit (Luhn over 80840 + NPI), is not 10 digits, or is missing; a ghost signal
    (core.quality: an NPI NPPES deactivated or does not hold, a name that is not NPPES's, a
    practitioner at implausibly many addresses). About what was published, not about a person."""

    code: QualityCode
    source: Annotated[str, Field(description="who published it: 'plan-net:<directory>'")]
    value: Annotated[str | None, Field(description="the value as published")]


@with_config(CLOSED)
class Evidence(TypedDict):
    source: Annotated[str, Field(description="a source that lists the address (as `sources`)")]
    asOf: Annotated[
        str | None,
        Field(
            description="that source's own date for it: NPPES's last update, the payer's"
            " meta.lastUpdated, else the day it was loaded",
            json_schema_extra={"format": "date"},
        ),
    ]


@with_config(CLOSED)
class Confidence(TypedDict):
    """How far to believe that the provider practises at this address (core.confidence; the
    README's "Trust" section has the rule)."""

    score: Annotated[
        int,
        Field(
            ge=1,
            le=5,
            description="5: independent sources agree, recently;"
            " 3: one source, nothing against it; 1: likely wrong",
        ),
    ]
    evidence: list[Evidence]
    reasons: list[Reason]


@with_config(CLOSED)
class Address(TypedDict):
    line1: str | None
    line2: str | None
    city: str | None
    state: str | None
    zip: str | None
    county: str | None
    lat: float | None
    lng: float | None


@with_config(CLOSED)
class OpeningHours(TypedDict):
    daysOfWeek: Annotated[list[str], Field(description="mon, tue, ... sun")]
    allDay: bool
    opens: Annotated[str | None, Field(description="HH:MM:SS")]
    closes: Annotated[str | None, Field(description="HH:MM:SS")]
