"""The search request (DESIGN 5.1) and response shapes.

The request is a pydantic model (it validates); the response shapes are TypedDicts that the
result builder is type-checked against and the OpenAPI document is generated from.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import BaseModel, Field, model_validator, with_config
from typing_extensions import TypedDict

from core.documents import CLOSED, EntityType, Gender, Location, Provider
from service.fields import (
    REQUEST_CONFIG,
    BidId,
    ContractYear,
    Integral,
    PayerPlanId,
    reject_null,
)
from service.search.places import LocationInput, PlaceSource, ResolvedFrom

MAX_WINDOW = 10_000  # offset + pageSize beyond this needs a cursor (Elasticsearch's window)
DEFAULT_RADIUS_MILES = 25.0
MAX_RADIUS_MILES = 100.0
CURSOR_PAGE_FIELDS = frozenset({"cursor", "pageSize"})


class SearchRequest(BaseModel):
    """Optional fields are left out, never null."""

    model_config = REQUEST_CONFIG

    query: str | None = Field(default=None, max_length=256)
    location: LocationInput | None = None
    radius: float | None = Field(default=None, gt=0, le=MAX_RADIUS_MILES, description="miles")
    pageSize: Integral = Field(default=50, ge=1, le=100)
    offset: Integral = Field(
        default=0,
        ge=0,
        lt=MAX_WINDOW,
        description=f"results to skip; a page ends at the {MAX_WINDOW:,}th result (shorter pages "
        "there), deeper pages come through 'nextCursor'",
    )
    sort: Literal["relevance", "distance"] | None = None
    specialty: str | None = Field(default=None, min_length=1, max_length=100)
    taxonomyCode: str | None = Field(default=None, pattern=r"^[0-9A-Z]{9}X$")
    language: str | None = Field(default=None, min_length=2, max_length=40)
    gender: Gender | None = None
    entityType: EntityType | None = None
    pcpEligible: bool | None = None
    bidId: BidId | None = None
    payerPlanId: PayerPlanId | None = None
    contractYear: ContractYear | None = None
    facets: bool = Field(
        default=False,
        description="counts by specialty, gender, language and distance band; they cost about "
        "as much as the search itself, so only when asked (the default until API 1.8 was true)",
    )
    concepts: bool = Field(
        default=True,
        description="read conditions, symptoms, body parts, procedures, tests and visit reasons "
        "('knee pain', 'flu shot') as the specialties that treat them; false: they stay words",
    )
    cursor: str | None = Field(
        default=None,
        min_length=1,
        max_length=4096,
        pattern="^[A-Za-z0-9_-]+$",  # unpadded base64url
        json_schema_extra={"format": "search-cursor"},
        description="the 'nextCursor' of a previous page (valid 5 minutes after its last use); "
        "one the service did not issue or no longer holds is a 404 (cursor_not_found, "
        "cursor_expired)",
    )

    _no_nulls = reject_null

    @model_validator(mode="after")
    def _consistent(self) -> SearchRequest:
        if self.cursor is not None:
            extra = self.model_fields_set - CURSOR_PAGE_FIELDS
            if extra:
                raise ValueError(
                    f"{sorted(extra)[0]}: a cursor page takes only 'cursor' and 'pageSize'"
                )
            return self
        if not (self.query and self.query.strip()) and self.location is None:
            raise ValueError("query: give at least one of 'query' or 'location'")
        if self.radius is not None and self.location is None:
            raise ValueError("radius: 'radius' needs a 'location'")
        if self.sort == "distance" and self.location is None:
            raise ValueError("sort: sort 'distance' needs a 'location'")
        if self.bidId is not None and self.payerPlanId is not None:
            raise ValueError("payerPlanId: give 'bidId' or 'payerPlanId', not both")
        plan = "bidId" if self.bidId is not None else "payerPlanId" if self.payerPlanId else None
        if plan is not None and self.contractYear is None:
            raise ValueError(f"{plan}: '{plan}' and 'contractYear' go together")
        if plan is None and self.contractYear is not None:
            raise ValueError("contractYear: 'contractYear' goes with 'bidId' or 'payerPlanId'")
        return self

    @property
    def page_size_given(self) -> int | None:
        return self.pageSize if "pageSize" in self.model_fields_set else None

    @property
    def window_size(self) -> int:
        """How many results this offset page can hold: Elasticsearch's window ends at
        MAX_WINDOW, so a page that would pass it is shorter (its nextCursor goes on)."""
        return min(self.pageSize, MAX_WINDOW - self.offset)

    @property
    def radius_miles(self) -> float:
        return self.radius if self.radius is not None else DEFAULT_RADIUS_MILES

    @property
    def effective_sort(self) -> Literal["relevance", "distance"]:
        if self.sort is not None:
            return self.sort
        has_text = bool(self.query and self.query.strip())
        return "relevance" if has_text or self.location is None else "distance"


@with_config(CLOSED)
class SearchResultLocation(Location):
    distance: NotRequired[Annotated[float, Field(description="miles from the searched point")]]


@with_config(CLOSED)
class SearchResult(Provider):
    locations: Annotated[
        list[SearchResultLocation],
        Field(description="inside the radius, nearest first (with a location); else all"),
    ]


@with_config(CLOSED)
class SpecialtyInterpretation(TypedDict):
    term: Annotated[str, Field(description="the specialty term recognised (corrected spelling)")]
    label: str
    taxonomyCodes: list[str]
    correctedFrom: Annotated[
        str | None, Field(description="the words as written, when they were a misspelling")
    ]


@with_config(CLOSED)
class ConceptInterpretation(TypedDict):
    term: Annotated[str, Field(description="the words read as the concept (corrected spelling)")]
    concept: str
    kind: Annotated[
        str,
        Field(description="condition, symptom, body_part, procedure, test or visit_reason"),
    ]
    source: Annotated[
        Literal["curated", "nucc_definition"],
        Field(
            description="curated: the project's concept list (CONCEPTS.md); nucc_definition: "
            "the NUCC definitions that match the words best, used when they matched no name"
        ),
    ]
    firstChoice: Annotated[list[str], Field(description="taxonomy codes a patient books first")]
    alsoTreats: Annotated[list[str], Field(description="taxonomy codes that also treat it")]
    correctedFrom: str | None


@with_config(CLOSED)
class LanguageInterpretation(TypedDict):
    term: str
    language: Annotated[str, Field(description="as providers list it, e.g. Spanish")]


@with_config(CLOSED)
class ResolvedLocation(TypedDict):
    lat: float
    lng: float
    resolvedFrom: ResolvedFrom
    label: Annotated[str, Field(description="the place understood, e.g. 'St. Louis, MO'")]
    source: Annotated[
        PlaceSource,
        Field(
            description="which data answered: geonames (GeoNames city centres), zipcodes (ZIP "
            "centroids, also for towns GeoNames lacks) or coordinates (as given)"
        ),
    ]


@with_config(CLOSED)
class InterpretedQuery(TypedDict):
    text: str
    freeText: str
    specialties: list[SpecialtyInterpretation]
    specialtyMode: Literal["filter", "boost"] | None
    concepts: list[ConceptInterpretation]
    conceptMode: Annotated[
        Literal["filter", "boost"] | None,
        Field(
            description="filter: providers with a specialty that treats it, first choices first;"
            " boost: beside a name, ranked a little higher"
        ),
    ]
    languages: list[LanguageInterpretation]
    languageMode: Annotated[
        Literal["filter", "boost"] | None,
        Field(description="filter: only providers speaking it; boost: ranked first (a name too)"),
    ]
    droppedWords: Annotated[
        list[str],
        Field(
            description="words left out because no provider matched them with the rest of "
            "the query; the results are those of the query without them"
        ),
    ]
    location: ResolvedLocation | None
    radiusMiles: float | None


@with_config(CLOSED)
class BeyondRadius(TypedDict):
    count: Annotated[int, Field(description="providers matching the query outside the radius")]
    nearestMiles: Annotated[float, Field(description="distance of the nearest of them")]
    radiusMiles: Annotated[
        float | None,
        Field(
            description="the radius that would find the nearest (None when over the 100 "
            "miles a search allows)"
        ),
    ]


@with_config(CLOSED)
class NoResults(TypedDict):
    """Why a search found nothing, and a way on; the results stay empty."""

    reason: Annotated[
        Literal["outside_radius", "no_match", "language_not_listed"],
        Field(
            description="outside_radius: matches exist farther away; no_match: none anywhere; "
            "language_not_listed: no provider in the directory lists a language asked for"
        ),
    ]
    beyondRadius: NotRequired[BeyondRadius]
    unlistedLanguages: NotRequired[
        Annotated[
            list[str],
            Field(description="languages asked for that no provider in the directory lists"),
        ]
    ]
    didYouMean: NotRequired[
        Annotated[
            str,
            Field(
                description="a query built from terms the directory understands (specialties, "
                "conditions) first, else from names that exist; never a name for medical words"
            ),
        ]
    ]


@with_config(CLOSED)
class FacetCount(TypedDict):
    value: str
    count: int


@with_config(CLOSED)
class Facets(TypedDict):
    specialty: list[FacetCount]
    gender: list[FacetCount]
    language: list[FacetCount]
    distance: NotRequired[Annotated[list[FacetCount], Field(description="with a location")]]


@with_config(CLOSED)
class SearchResponse(TypedDict):
    results: list[SearchResult]
    pageSize: int
    offset: int
    totalCount: int
    interpretedQuery: InterpretedQuery
    facets: NotRequired[
        Annotated[Facets, Field(description="unless facets: false (and on cursor pages)")]
    ]
    nextCursor: Annotated[str | None, Field(description="send back as 'cursor' for the next page")]
    noResults: NotRequired[
        Annotated[NoResults, Field(description="only when totalCount is 0 (not on cursor pages)")]
    ]
