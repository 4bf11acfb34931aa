"""The documents the indexer stores and the service returns: one definition of each shape.

A provider, a location and a plan are the same thing in the index and on the wire, so they are
defined once, here (their parts: core.provider_parts), as TypedDicts: the indexer builds them as
plain dict literals on its hot path (checked by mypy), and pydantic reads the same classes to
generate the OpenAPI schemas of the service's answers (see ``service/web/openapi.py``).
``extra="forbid"`` makes the published schema closed, so a field added here without a schema
change cannot slip out unnoticed. How an index indexes each field is in its type, too
(core.index_fields).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, with_config
from typing_extensions import TypedDict  # pydantic needs it for TypedDicts on Python < 3.12

from core import index_fields as ix
from core.index_fields import Indexed
from core.provider_parts import CLOSED as CLOSED
from core.provider_parts import Address as Address
from core.provider_parts import Confidence as Confidence
from core.provider_parts import DataQualityNote as DataQualityNote
from core.provider_parts import Evidence as Evidence
from core.provider_parts import GroupAffiliation as GroupAffiliation
from core.provider_parts import HospitalAffiliation as HospitalAffiliation
from core.provider_parts import OpeningHours as OpeningHours
from core.provider_parts import Specialty as Specialty

Json = dict[str, Any]  # a JSON object as Elasticsearch and the API exchange it
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
    confidence: Confidence


@with_config(CLOSED)
class Plan(TypedDict):
    """A plan in one contract year: a Medicare Advantage plan (bid id) from the Plan Finder
    files, or a payer's plan from its Plan-Net directory, with its bid id when the payer gives
    one. ``_id``: ``plan_doc_id`` of ``core.plans.plan_key``."""

    contractYear: Annotated[int, ix.INTEGER]
    bidId: Annotated[
        str | None, Field(description="canonical form, e.g. H1234_001_000"), ix.KEYWORD
    ]
    contractId: Annotated[str | None, ix.KEYWORD]
    planId: str | None
    segmentId: str | None
    payerPlanId: Annotated[
        str | None, Field(description="the payer's own identifier of a plan without a bid id")
    ]
    source: Annotated[str, Field(description="'plan-finder' or 'plan-net:<directory>'"), ix.KEYWORD]
    planName: str | None
    organization: str | None
    planType: str | None
    snpType: str | None
    states: Annotated[list[str], Field(description="USPS codes, e.g. NH"), ix.KEYWORD]


# ---- stored only: the search document and coverage rows are never answered as they are ----
# How each field is indexed is in its type (core.index_fields.Indexed); a field without one is
# kept in the source only. Only what is filtered, scored, sorted or aggregated on is indexed.


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

    key: Annotated[str, ix.KEYWORD]
    period: Annotated[Period, Indexed(type="date_range", format="strict_date")]


_COPIED_TO_TYPOS = ix.NAME_TEXT.but(copy_to="typoTolerant")


_POINTS = Indexed(type="geo_point")
# Doc values only: a radius on them is checked on the providers ``points``' index finds inside
# it (service.search_kit.geo), which costs a search next to nothing and saves the load an index
# of each (most providers' points are the same in two of them).
_POINTS_CHECKED = _POINTS.but(index=False)


class ConfidentPoints(TypedDict, total=False):
    """The points of the locations at or above each confidence score (core.confidence), for
    ``minConfidence``: each a field of its own, so the radius, the distance sort and the facets
    of a search read one field whatever the score asked (1: ``points``)."""

    atLeast2: Annotated[list[GeoPoint], _POINTS_CHECKED]
    atLeast3: Annotated[list[GeoPoint], _POINTS_CHECKED]
    atLeast4: Annotated[list[GeoPoint], _POINTS_CHECKED]
    atLeast5: Annotated[list[GeoPoint], _POINTS_CHECKED]


class DerivedFields(TypedDict):
    """The search fields made from the provider and locations alone (core.search_fields)."""

    entityType: Annotated[str, ix.FILTER_KEYWORD]
    gender: Annotated[str | None, ix.KEYWORD]
    taxonomyCodes: Annotated[list[str], ix.FILTER_KEYWORD]
    primaryTaxonomyCodes: Annotated[list[str], ix.FILTER_KEYWORD]
    specialtyNames: Annotated[list[str], ix.KEYWORD]  # NUCC display names, for facets
    # Filtered case-insensitively; the facet counts the names as written ("display").
    languages: Annotated[
        list[str], ix.WORDS_KEYWORD.but(copy_to="languageText", fields={"display": ix.KEYWORD})
    ]
    pcpEligible: Annotated[bool, Indexed(type="boolean", doc_values=False)]
    sources: Annotated[
        list[str], ix.FILTER_KEYWORD
    ]  # an update of a Plan-Net directory finds its own
    # Text fields below hold core.text.indexed_form text (one tokenisation rule, both sides).
    fullName: Annotated[str, ix.NAME_TEXT]
    # Whole names as people type them: "first last", "first middle last", organisation names.
    exactNames: Annotated[list[str], ix.WORDS_KEYWORD]
    organizations: Annotated[list[str], _COPIED_TO_TYPOS]
    specialtyText: Annotated[list[str], ix.TEXT]
    credentials: Annotated[list[str], ix.TEXT]
    # One per geocoded location, for the radius, distance and facets: a plain multi-valued
    # geo_point, not nested locations (the in-radius locations of a hit are picked from those
    # stored).
    points: Annotated[list[GeoPoint], _POINTS]
    confidentPoints: Annotated[ConfidentPoints, Indexed.object()]
    # The best confidence of its locations (core.confidence), placed or not: ``minConfidence``
    # without a place, and the facet by score.
    bestConfidence: Annotated[int, Indexed(type="byte")]
    # FHIR's string and token parameters (core.fhir_terms), matched as prefixes; location ids.
    roleCodes: Annotated[list[str], ix.FILTER_KEYWORD]
    familyNames: Annotated[list[str], ix.WORDS_KEYWORD]
    givenNames: Annotated[list[str], ix.WORDS_KEYWORD]
    locationIds: Annotated[list[str], ix.FILTER_KEYWORD]
    cities: Annotated[list[str], ix.WORDS_KEYWORD]
    states: Annotated[list[str], ix.WORDS_KEYWORD]
    postalCodes: Annotated[list[str], ix.FILTER_KEYWORD]
    addressParts: Annotated[list[str], ix.WORDS_KEYWORD]


class SearchDoc(DerivedFields):
    """One per provider: the Provider and Locations to answer with (stored, not indexed), what
    cannot be made from them (its key, networks, names with the NPPES row's other names). No
    field is left out of the stored source (a filtered one costs a whole _recovery_source copy
    of each document: issue 35, BENCHMARKS.md)."""

    # The tie-break of every sort (doc values), not indexed: a query for a provider asks for
    # its document id, the same key (``ids``); a term per document cost ~6 µs per provider.
    npi: Annotated[str, ix.KEYWORD.but(index=False)]
    # core.network.network_periods of its coverage rows; nested: a plan year and its period
    # must match in the same row.
    networks: Annotated[list[NetworkPeriod], Indexed.object(type="nested")]
    names: Annotated[list[str], _COPIED_TO_TYPOS]
    nameParts: Annotated[list[str], ix.WORDS_KEYWORD]  # core.fhir_terms.name_terms
    # Each without the confidence NPPES alone gives it: core.search_fields.locations_of.
    locations: Annotated[list[Location], ix.UNPARSED]
    # Without its id when its NPI gives it: core.search_fields.provider_source, provider_of.
    provider: Annotated[Provider, ix.UNPARSED]
    changedAt: NotRequired[Annotated[str, ix.INSTANT]]  # core.changes: stamped when written


class SearchCopies(TypedDict):
    """What only the search index has: the fields ``copy_to`` fills, never in a document."""

    languageText: Annotated[str, ix.TEXT]
    # Names and organisations matched fuzzily once, here: a fuzzy query costs per field.
    typoTolerant: Annotated[str, ix.TEXT.but(index_options="docs", norms=False)]


class CoverageDoc(TypedDict):
    """One row of an operator's coverage file. ``_id``: see ``coverage_doc_id``."""

    contractYear: Annotated[int, ix.INTEGER]
    bidId: Annotated[str, ix.KEYWORD]  # the plan's key: core.plans.plan_key (bid id or payer:<id>)
    npi: Annotated[str, ix.KEYWORD]
    locationId: Annotated[str | None, ix.KEYWORD]  # None: the whole provider, every location
    networkStatus: Annotated[NetworkStatus, ix.KEYWORD]
    acceptingNewPatients: Annotated[bool | None, ix.BOOLEAN]
    effectiveDate: Annotated[str | None, ix.DATE]  # ISO date; None: since ever
    terminationDate: Annotated[str | None, ix.DATE]  # ISO date, exclusive; None: open-ended
    source: Annotated[str, ix.KEYWORD]
