"""Plans for my doctors (DESIGN 5.7): the area search's request, a plan read's parameters, and
the shapes of both answers (TypedDicts; OpenAPI is generated from them)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
    with_config,
)
from typing_extensions import TypedDict

from core.documents import CLOSED
from core.plan_offers import (
    CONTRACT_KINDS,
    MEDICARE_ADVANTAGE_KINDS,
    ContractKind,
    OfferedPlan,
    ServiceArea,
)
from core.plans import canonical_bid_id
from service.fields import BidId, ContractYear, Integral, reject_null, request_config
from service.network_kit.models import NpiRequest, ProviderStatus, unique_npis
from service.search_kit.limits import MAX_PAGE_SIZE

MAX_NPIS = 25
FIVE_DIGITS = r"^[0-9]{5}$"
# Cross-field rules, stated for clients and test generators (the validators below enforce them).
_RULES: dict[str, Any] = {
    "allOf": [
        {
            "if": {"required": ["cursor"]},
            "then": {"propertyNames": {"enum": ["cursor", "pageSize"]}},
            "else": {
                "oneOf": [{"required": ["zip"]}, {"required": ["countyFips"]}],
            },
        }
    ]
}
SnpChoice = Literal["exclude", "include", "only"]
PlanSort = Literal["providers", "premium", "stars"]


class PlanSearchRequest(BaseModel):
    model_config = request_config(_RULES)

    zip: str | None = Field(
        default=None,
        pattern=FIVE_DIGITS,
        json_schema_extra={"format": "us-zip"},
        description="where the person lives: a 5-digit ZIP (give this or countyFips)",
    )
    countyFips: str | None = Field(
        default=None, pattern=FIVE_DIGITS, description="a 5-digit county FIPS code, e.g. 33011"
    )
    contractYear: ContractYear | None = Field(
        default=None, description="the plan year (default: the year of the service's day)"
    )
    npis: list[NpiRequest] = Field(
        default_factory=list,
        max_length=MAX_NPIS,
        description="the person's doctors, as in the coverage request: an NPI asked twice is"
        " answered once, where and as its first mention asks it",
    )
    planTypes: list[ContractKind] | None = Field(
        default=None,
        min_length=1,
        description="contract kinds: "
        + "; ".join(f"{kind} {text}" for kind, text in CONTRACT_KINDS.items())
        + f" (default: {', '.join(MEDICARE_ADVANTAGE_KINDS)})",
    )
    snp: SnpChoice = Field(
        default="exclude", description="special needs plans: left out (default), included, only"
    )
    maxMonthlyPremium: float | None = Field(
        default=None, ge=0, description="US dollars; a plan whose premium is unknown is left out"
    )
    minStars: float | None = Field(
        default=None, ge=1, le=5, description="overall stars; an unrated plan is left out"
    )
    sort: PlanSort = Field(
        default="providers",
        description="providers: most asked NPIs in network, then overall stars, then premium;"
        " premium: lowest first; stars: highest first (ties: the other two, then bid id)",
    )
    pageSize: Integral = Field(default=20, ge=1, le=MAX_PAGE_SIZE)
    cursor: str | None = Field(
        default=None, description="nextCursor of the previous page (with pageSize only)"
    )

    _no_nulls = reject_null
    _unique_npis = unique_npis  # as the coverage request: the first mention wins

    @model_validator(mode="after")
    def _one_area(self) -> PlanSearchRequest:
        if self.cursor is not None:
            others = self.model_fields_set - {"cursor", "pageSize"}
            if others:
                raise ValueError(f"{sorted(others)[0]}: a cursor carries the rest of the request")
            return self
        if (self.zip is None) == (self.countyFips is None):
            field = "countyFips" if self.zip is not None else "zip"
            raise ValueError(f"{field}: give exactly one area, zip or countyFips")
        return self

    @property
    def kinds(self) -> tuple[ContractKind, ...]:
        return tuple(self.planTypes) if self.planTypes else MEDICARE_ADVANTAGE_KINDS


@with_config(CLOSED)
class Area(TypedDict):
    zip: str | None
    countyFips: str | None
    countyName: str | None
    state: str | None


@with_config(CLOSED)
class PlanProviderStatus(ProviderStatus):
    acceptingNewPatients: Annotated[
        bool | None,
        Field(
            description="true when an in-network location takes new patients, false when every"
            " in-network location with a known answer does not, null when nobody says"
        ),
    ]


@with_config(CLOSED)
class PlanMatch(OfferedPlan):
    """A plan offered in the area, with the network status of each asked NPI."""

    providers: Annotated[
        list[PlanProviderStatus],
        Field(
            description="one per asked NPI, by the coverage check's rule on the same day; a plan"
            " with no participation rows for an NPI answers it `out_of_network` with reason"
            " `no_participation_record` exactly as POST /v2/providers/coverage does"
        ),
    ]
    inNetworkCount: int


@with_config(CLOSED)
class NoPlanResults(TypedDict):
    code: Literal["no_plan_offered", "no_plan_matches"]
    detail: str


@with_config(CLOSED)
class PlanSearchResponse(TypedDict):
    area: Area
    contractYear: int
    asOf: Annotated[str, Field(json_schema_extra={"format": "date"})]
    totalCount: int
    pageSize: int
    results: list[PlanMatch]
    nextCursor: str | None
    noResults: Annotated[NoPlanResults | None, Field(description="why no plan is answered")]


@with_config(CLOSED)
class PlanDetail(OfferedPlan):
    serviceArea: ServiceArea


class PlanReadParams(BaseModel):
    """GET /v2/plans/{bidId}: the path's bid id and the query's contract year."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bidId: BidId
    contractYear: ContractYear | None = Field(
        default=None, description="the plan year (default: the year of the service's day)"
    )

    @field_validator("bidId")
    @classmethod
    def _canonical(cls, value: str) -> str:
        return canonical_bid_id(value) or value
