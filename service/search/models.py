"""The search request (DESIGN 5.1) as a pydantic model: types, ranges, unknown fields."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from service.search.places import LocationInput

MAX_WINDOW = 10_000  # offset + pageSize beyond this needs a cursor (Elasticsearch's window)
DEFAULT_RADIUS_MILES = 25.0


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    query: str | None = Field(default=None, max_length=256)
    location: LocationInput | None = None
    radius: float | None = Field(default=None, gt=0, le=100, description="miles")
    pageSize: int = Field(default=50, ge=1, le=100)
    offset: int = Field(default=0, ge=0)
    sort: Literal["relevance", "distance"] | None = None
    specialty: str | None = Field(default=None, min_length=1, max_length=100)
    taxonomyCode: str | None = Field(default=None, pattern=r"^[0-9A-Z]{9}X$")
    language: str | None = Field(default=None, min_length=2, max_length=40)
    gender: Literal["F", "M", "X"] | None = None
    entityType: Literal["individual", "organization"] | None = None
    pcpEligible: bool | None = None
    bidId: str | None = Field(default=None, max_length=20)
    contractYear: int | None = Field(default=None, ge=2000, le=2100)
    facets: bool = True
    cursor: str | None = Field(default=None, max_length=4096)

    @model_validator(mode="after")
    def _consistent(self) -> SearchRequest:
        if self.cursor is not None:
            return self
        if not (self.query and self.query.strip()) and self.location is None:
            raise ValueError("query: give at least one of 'query' or 'location'")
        if self.radius is not None and self.location is None:
            raise ValueError("radius: 'radius' needs a 'location'")
        if self.sort == "distance" and self.location is None:
            raise ValueError("sort: sort 'distance' needs a 'location'")
        if self.offset + self.pageSize > MAX_WINDOW:
            raise ValueError(
                f"offset: offset + pageSize must be <= {MAX_WINDOW}; page deeper with 'cursor' "
                "(send back the 'nextCursor' of the previous page)"
            )
        if (self.bidId is None) != (self.contractYear is None):
            raise ValueError("bidId: 'bidId' and 'contractYear' go together")
        return self

    @property
    def radius_miles(self) -> float:
        return self.radius if self.radius is not None else DEFAULT_RADIUS_MILES

    @property
    def effective_sort(self) -> Literal["relevance", "distance"]:
        if self.sort is not None:
            return self.sort
        has_text = bool(self.query and self.query.strip())
        return "relevance" if has_text or self.location is None else "distance"
