"""The search request (DESIGN 5.1): a pydantic model that validates, and states its cross-field
rules in its JSON Schema too (the answer's shapes: service.search.responses)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, Field, model_validator

from core.documents import EntityType, Gender, Json
from service.fields import (
    BidId,
    ConfidenceScore,
    ContractYear,
    Integral,
    PayerPlanId,
    reject_null,
    request_config,
)
from service.search.places import LocationInput
from service.search_kit.limits import (
    CURSOR_LIFE_MINUTES,
    MAX_PAGE_SIZE,
    MAX_RADIUS_MILES,
    MAX_TEXT_LENGTH,
    MAX_WINDOW,
)

DEFAULT_RADIUS_MILES = 25.0
CURSOR_PAGE_FIELDS = frozenset({"cursor", "pageSize"})
# What ``SearchRequest._consistent`` checks, stated in its JSON Schema for clients and test
# generators; inside allOf, so that client generators still give the body a typed model.
SEARCH_RULES: Json = {
    "allOf": [
        {
            "anyOf": [
                {"required": ["query"], "properties": {"query": {"pattern": "\\S"}}},
                {"required": ["location"]},
                {"required": ["cursor"]},
            ]
        },
        {
            "if": {"required": ["cursor"]},
            "then": {"propertyNames": {"enum": sorted(CURSOR_PAGE_FIELDS)}},
        },
        {
            "if": {"required": ["sort"], "properties": {"sort": {"const": "distance"}}},
            "then": {"required": ["location"]},
        },
        {
            "if": {"required": ["contractYear"]},
            "then": {"anyOf": [{"required": ["bidId"]}, {"required": ["payerPlanId"]}]},
        },
        {"not": {"required": ["bidId", "payerPlanId"]}},
    ],
    "dependentRequired": {
        "radius": ["location"],
        "bidId": ["contractYear"],
        "payerPlanId": ["contractYear"],
    },
}


class SearchRequest(BaseModel):
    """Optional fields are left out, never null."""

    model_config = request_config(SEARCH_RULES)
    # A location of none of the forms is told what they are (service.web.validation).
    union_messages: ClassVar[dict[str, str]] = {
        "location": "expected {lat, lng}, {zip}, {city, state}, or a string such as '10013', "
        "'Austin, TX' or '40.71,-74.00'"
    }

    query: str | None = Field(default=None, max_length=MAX_TEXT_LENGTH)
    location: LocationInput | None = None
    radius: float | None = Field(default=None, gt=0, le=MAX_RADIUS_MILES, description="miles")
    pageSize: Integral = Field(default=50, ge=1, le=MAX_PAGE_SIZE)
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
    minConfidence: ConfidenceScore | None = Field(
        default=None,
        description="only locations whose confidence score is at least this count: for the "
        "radius, the distance and the locations answered; without a location, providers with "
        "such a location anywhere (1, the default: every location)",
    )
    facets: bool = Field(
        default=False,
        description="counts by specialty, gender, language, distance band and confidence "
        "score; they cost about "
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
        description=f"the 'nextCursor' of a previous page (valid {CURSOR_LIFE_MINUTES} minutes "
        "after its last use); "
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
    def min_confidence(self) -> int:
        """The lowest confidence score that counts (every location's when not asked)."""
        return self.minConfidence if self.minConfidence is not None else 1

    @property
    def radius_miles(self) -> float:
        return self.radius if self.radius is not None else DEFAULT_RADIUS_MILES

    @property
    def effective_sort(self) -> Literal["relevance", "distance"]:
        if self.sort is not None:
            return self.sort
        has_text = bool(self.query and self.query.strip())
        return "relevance" if has_text or self.location is None else "distance"
