"""The documents the indexer stores and the service returns: one definition of each shape.

A provider, a location and a plan are the same thing in the index and on the wire, so they are
defined once, here, as TypedDicts: the indexer builds them as plain dict literals on its hot path
(checked by mypy), and pydantic reads the same classes to generate the OpenAPI schemas of the
service's answers (see ``service/web/openapi.py``). ``extra="forbid"`` makes the published schema
closed, so a field added here without a schema change cannot slip out unnoticed.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict  # pydantic needs it for TypedDicts on Python < 3.12

from core.npi import NpiIssue

Json = dict[str, Any]  # a JSON object as Elasticsearch and the API exchange it
CLOSED = ConfigDict(extra="forbid")
Gender = Literal["F", "M", "X"]
EntityType = Literal["individual", "organization"]
NetworkStatus = Literal["in_network", "out_of_network"]
IsoDate = Annotated[str, Field(json_schema_extra={"format": "date"})]
NewPatients = Literal[
    "accepting", "existing_patients_only", "existing_patients_and_family", "not_accepting"
]
SOURCES_DESCRIPTION = (
    "'nppes' (the NPPES file), 'dac' (CMS Doctors & Clinicians), 'plan-net:<directory>' (a"
    " payer's Plan-Net directory, named when it was loaded)"
)


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
    its check digit (Luhn over 80840 + NPI), is not 10 digits, or is missing."""

    code: NpiIssue
    source: Annotated[str, Field(description="who published it: 'plan-net:<directory>'")]
    value: Annotated[str | None, Field(description="the value as published")]


@with_config(CLOSED)
class Provider(TypedDict):
    id: Annotated[
        str,
        Field(
            description="stable across reindexes (UUID v5 of the NPI; for a provider a payer's"
            " directory lists without a 10-digit NPI, of the directory and its resource id)",
            json_schema_extra={"format": "uuid"},
        ),
    ]
    npis: Annotated[
        list[str],
        Field(
            description="as published: a payer's directory may give one whose check digit is"
            " wrong, one that is not 10 digits, or none (each said in `dataQuality`); such an"
            " NPI is never joined to an NPPES record"
        ),
    ]
    entityType: EntityType
    organizationName: str | None
    doingBusinessAs: str | None
    firstName: str | None
    lastName: str | None
    middleName: str | None
    prefix: str | None
    suffix: str | None
    gender: Gender | None
    credentials: list[str]
    languages: list[str]
    groupAffiliations: list[GroupAffiliation]
    hospitalAffiliations: list[HospitalAffiliation]
    specialties: list[Specialty]
    pcpEligible: bool
    enumerationDate: IsoDate | None
    lastUpdated: IsoDate | None
    sources: Annotated[
        list[str],
        Field(
            description="what the record is built from: "
            + SOURCES_DESCRIPTION
            + "; without 'nppes' only a payer's directory lists the provider"
        ),
    ]
    languageSources: Annotated[
        list[str], Field(description="where `languages` come from ('dac', 'plan-net:...')")
    ]
    dataQuality: NotRequired[
        Annotated[
            list[DataQualityNote],
            Field(description="present when a source published something wrong, kept as is"),
        ]
    ]


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


@with_config(CLOSED)
class Location(TypedDict):
    id: str
    npi: Annotated[str, Field(description="the provider's NPI, else its `id` (no 10-digit NPI)")]
    address: Address
    phoneNumbers: list[str]
    faxNumbers: list[str]
    website: str | None
    email: str | None
    groupAffiliations: list[GroupAffiliation]
    hospitalAffiliations: list[HospitalAffiliation]
    pcpEligible: bool
    source: Annotated[
        str, Field(description="who listed the address first: " + SOURCES_DESCRIPTION)
    ]
    sources: Annotated[list[str], Field(description="every source that lists the address")]
    geocodePrecision: Annotated[
        Literal["exact", "zip5"] | None,
        Field(
            description="exact: the point a payer's Plan-Net directory gives; zip5: the ZIP"
            " code's centre; null: not placed (not found by a radius)"
        ),
    ]
    newPatients: Annotated[
        NewPatients | None,
        Field(description="whether the practice takes new patients here (Plan-Net directories)"),
    ]
    hoursOfOperation: list[OpeningHours]


@with_config(CLOSED)
class Plan(TypedDict):
    """A plan in one contract year: a Medicare Advantage plan (bid id) from the Plan Finder
    files, or a payer's plan from its Plan-Net directory, with its bid id when the payer gives
    one. ``_id``: ``plan_doc_id`` of ``core.plans.plan_key``."""

    contractYear: int
    bidId: Annotated[str | None, Field(description="canonical form, e.g. H1234_001_000")]
    contractId: str | None
    planId: str | None
    segmentId: str | None
    payerPlanId: Annotated[
        str | None, Field(description="the payer's own identifier of a plan without a bid id")
    ]
    source: Annotated[str, Field(description="'plan-finder' or 'plan-net:<directory>'")]
    planName: str | None
    organization: str | None
    planType: str | None
    snpType: str | None
    states: Annotated[list[str], Field(description="USPS codes, e.g. NH")]


# ---- stored only: the search document and coverage rows are never answered as they are ----


class LookupDoc(TypedDict):
    """One per provider in the lookup index (``_id``: the NPI), nothing of it indexed, read back
    by id: ``GET /providers/{npi}`` and ``.../locations`` as the bytes they answer
    (core.lookup_answers builds it)."""

    provider: str
    locations: str
    lastUpdated: IsoDate | None  # the provider's, which the weekly update compares its rows with
    # A provider a Plan-Net directory adds to (indexer.assembly.plan_net): what it added, and
    # the documents before it (None: the directory alone lists it), so an update of either
    # source rebuilds the provider without the other's file.
    planNet: NotRequired[str]
    base: NotRequired[str | None]


class GeoPoint(TypedDict):
    lat: float
    lon: float


class Period(TypedDict, total=False):
    """An Elasticsearch ``date_range`` value: from ``gte`` (inclusive) to ``lt`` (exclusive)."""

    gte: str
    lt: str


class NetworkPeriod(TypedDict):
    """An in-network coverage row of a provider, as the search index holds it (core.network)."""

    key: str
    period: Period


class DerivedFields(TypedDict):
    """The search fields made from the provider and locations alone (core.search_fields)."""

    entityType: str
    gender: str | None
    taxonomyCodes: list[str]
    primaryTaxonomyCodes: list[str]
    specialtyNames: list[str]  # NUCC display names, for facets
    languages: list[str]
    pcpEligible: bool
    sources: list[str]  # Provider.sources: an update of a Plan-Net directory finds its own
    # Text fields below hold core.text.indexed_form text (one tokenisation rule, both sides).
    fullName: str
    exactNames: list[str]
    organizations: list[str]
    specialtyText: list[str]
    credentials: list[str]
    points: list[GeoPoint]  # one per geocoded location, for the radius, distance and facets
    # FHIR's string and token parameters (core.fhir_terms), and location ids, read by id.
    roleCodes: list[str]
    familyNames: list[str]
    givenNames: list[str]
    locationIds: list[str]
    cities: list[str]
    states: list[str]
    postalCodes: list[str]
    addressParts: list[str]


class SearchDoc(DerivedFields):
    """One per provider: the Provider and Locations to answer with (stored, not indexed), what
    cannot be made from them (its key, networks, names with the NPPES row's other names)."""

    npi: str
    networks: list[NetworkPeriod]  # core.network.network_periods of its coverage rows
    names: list[str]
    nameParts: list[str]  # core.fhir_terms.name_terms
    locations: list[Location]
    # Without its id when its NPI gives it: core.search_fields.provider_source, provider_of.
    provider: Provider
    changedAt: NotRequired[str]  # core.changes: stamped as the document is written


class PublishedDoc(TypedDict):
    """What a payer's Plan-Net directory publishes besides providers and plans (its
    HealthcareServices and Endpoints), kept in the plans index as the FHIR API serves it:
    ``_id`` ``<resourceType>/<id>``; ``terms``: what each search parameter matches
    (core.fhir_terms.term); ``resource``: stored, not indexed."""

    resourceType: str
    id: str
    source: str
    terms: list[str]
    resource: Json
    changedAt: NotRequired[str]  # core.changes: stamped as the document is written


class CoverageDoc(TypedDict):
    """One row of an operator's coverage file. ``_id``: see ``coverage_doc_id``."""

    contractYear: int
    bidId: str  # the plan's key: core.plans.plan_key (a canonical bid id, or payer:<id>)
    npi: str
    locationId: str | None  # None: the whole provider, every location
    networkStatus: NetworkStatus
    acceptingNewPatients: bool | None
    effectiveDate: str | None  # ISO date; None: since ever
    terminationDate: str | None  # ISO date, exclusive; None: open-ended
    source: str
