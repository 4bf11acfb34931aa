"""The search answer's shapes (DESIGN 5.1): TypedDicts the result builder is type-checked against
and the OpenAPI document is generated from."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import Field, with_config
from typing_extensions import TypedDict

from core.documents import CLOSED, Location, Provider
from service.search.places import PlaceSource, ResolvedFrom


@with_config(CLOSED)
class SearchResultLocation(Location):
    distance: NotRequired[Annotated[float, Field(description="miles from the searched point")]]


@with_config(CLOSED)
class SearchResult(Provider):
    locations: Annotated[
        list[SearchResultLocation],
        Field(
            description="inside the radius, nearest first (with a location); else all; only "
            "those at or above minConfidence"
        ),
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
    minConfidence: Annotated[
        int,
        Field(
            description="the lowest confidence score of the locations that counted (1: every "
            "location, as when minConfidence is not asked)"
        ),
    ]


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
        Literal["outside_radius", "below_min_confidence", "no_match", "language_not_listed"],
        Field(
            description="outside_radius: matches exist farther away; below_min_confidence: "
            "matches exist here, but none of their locations there reaches minConfidence (never "
            "relaxed); no_match: none anywhere; language_not_listed: no provider in the "
            "directory lists a language asked for"
        ),
    ]
    beyondRadius: NotRequired[BeyondRadius]
    belowMinConfidence: NotRequired[
        Annotated[
            int,
            Field(
                description="providers the search finds when every location counts, whatever "
                "its confidence: those minConfidence left out"
            ),
        ]
    ]
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
    confidence: Annotated[
        list[FacetCount],
        Field(
            description="providers by the best confidence score (values 1 to 5) of their "
            "locations that count: inside the radius with a location, at or above minConfidence"
        ),
    ]


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
