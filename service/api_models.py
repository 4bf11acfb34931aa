"""Response models for the OpenAPI document: the exact shapes the handlers send.

Providers and locations are the stored documents of ``core.index_contract`` (a test keeps these
field lists equal to those TypedDicts); every object forbids unknown fields, so schemathesis fails
the build when a handler's answer and this description drift apart.
"""

from __future__ import annotations

from datetime import date
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from service.search.places import ResolvedFrom


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Specialty(Closed):
    code: str = Field(description="NUCC taxonomy code")
    displayName: str | None
    grouping: str | None
    classification: str | None
    specialization: str | None
    primary: bool
    licenseNumber: str | None
    licenseState: str | None


class GroupAffiliation(Closed):
    name: str
    pacId: str | None


class HospitalAffiliation(Closed):
    ccn: str = Field(description="CMS Certification Number")
    name: str | None


class Provider(Closed):
    id: UUID = Field(description="stable across reindexes (UUID v5 of the NPI)")
    npis: list[str]
    entityType: Literal["individual", "organization"]
    organizationName: str | None
    doingBusinessAs: str | None
    firstName: str | None
    lastName: str | None
    middleName: str | None
    prefix: str | None
    suffix: str | None
    gender: Literal["F", "M", "X"] | None
    credentials: list[str]
    languages: list[str]
    groupAffiliations: list[GroupAffiliation]
    hospitalAffiliations: list[HospitalAffiliation]
    specialties: list[Specialty]
    pcpEligible: bool
    enumerationDate: str | None
    lastUpdated: str | None


class Address(Closed):
    line1: str | None
    line2: str | None
    city: str | None
    state: str | None
    zip: str | None
    county: str | None
    lat: float | None
    lng: float | None


class Location(Closed):
    id: str
    npi: str
    address: Address
    phoneNumbers: list[str]
    faxNumbers: list[str]
    website: str | None
    email: str | None
    groupAffiliations: list[GroupAffiliation]
    hospitalAffiliations: list[HospitalAffiliation]
    pcpEligible: bool
    source: str = Field(description="where the location comes from, e.g. nppes")
    geocodePrecision: Literal["zip5"] | None


# ---- search ----


class SearchResultLocation(Location):
    distance: float | SkipJsonSchema[None] = Field(
        default=None, description="miles from the searched point; only with a location"
    )


class SearchResult(Provider):
    locations: list[SearchResultLocation] = Field(
        description="inside the radius, nearest first (with a location); else every location"
    )


class SpecialtyInterpretation(Closed):
    term: str
    label: str
    taxonomyCodes: list[str]


class ResolvedLocation(Closed):
    lat: float
    lng: float
    resolvedFrom: ResolvedFrom
    label: str


class InterpretedQuery(Closed):
    text: str
    freeText: str
    specialties: list[SpecialtyInterpretation]
    specialtyMode: Literal["filter", "boost"] | None
    location: ResolvedLocation | None
    radiusMiles: float | None


class FacetCount(Closed):
    value: str
    count: int


class Facets(Closed):
    specialty: list[FacetCount]
    gender: list[FacetCount]
    language: list[FacetCount]
    distance: list[FacetCount] | SkipJsonSchema[None] = Field(
        default=None, description="distance bands; only with a location"
    )


class SearchResponse(Closed):
    results: list[SearchResult]
    pageSize: int
    offset: int
    totalCount: int
    interpretedQuery: InterpretedQuery
    facets: Facets | SkipJsonSchema[None] = Field(
        default=None, description="unless the request said facets: false (and on cursor pages)"
    )
    nextCursor: str | None = Field(description="send back as 'cursor' for the next page")


# ---- coverage ----


class Plan(Closed):
    contractYear: int
    bidId: str
    contractId: str
    planId: str
    segmentId: str
    planName: str | None
    organization: str | None
    planType: str | None
    snpType: str | None
    states: list[str]


class CoverageLocation(Location):
    networkStatus: Literal["in_network", "out_of_network"]
    reason: Literal["no_participation_record"] | None
    acceptingNewPatients: bool | None
    effectiveDate: str | None
    terminationDate: str | None


class UnknownCoverageLocation(Closed):
    """A location id the request named that this provider does not have."""

    id: str
    networkStatus: Literal["unknown"]
    reason: Literal["location_not_found"]
    acceptingNewPatients: None
    effectiveDate: None
    terminationDate: None


class CoverageProvider(Closed):
    npi: str
    provider: Provider | None
    networkStatus: Literal["in_network", "out_of_network", "unknown"]
    reason: (
        Literal[
            "plan_not_found", "provider_not_found", "location_not_found", "no_participation_record"
        ]
        | None
    ) = Field(description="why the status is unknown, or why there is no record")
    locations: list[CoverageLocation | UnknownCoverageLocation]


class CoveragePlan(Closed):
    contractYear: int
    bidId: str = Field(description="canonical form, e.g. H1234_001_000")
    asOf: date = Field(description="the day the participation was evaluated for")
    plan: Plan | None
    providers: list[CoverageProvider]


# ---- problems and probes ----


class FieldError(Closed):
    field: str
    message: str


class Problem(Closed):
    """RFC 9457 problem details."""

    type: str
    title: str
    status: int
    detail: str
    code: str = Field(description="stable, machine-readable error code")
    instance: str = Field(description="the request path")
    requestId: str = Field(description="the X-Request-ID of this request")
    errors: list[FieldError] | SkipJsonSchema[None] = Field(
        default=None, description="for validation errors: one entry per field"
    )


class Health(Closed):
    status: Literal["ok"]


class Readiness(Closed):
    status: Literal["ready", "not_ready"]
    detail: str
