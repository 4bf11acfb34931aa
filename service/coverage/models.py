"""The coverage request (DESIGN 5.4: plans x providers, bounded, canonical bid ids) and the shapes
of its answer (TypedDicts the evaluation is type-checked against and OpenAPI is generated from)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, Field, field_validator, model_validator, with_config
from typing_extensions import TypedDict

from core.documents import CLOSED, IsoDate, Location, Plan, Provider
from core.network import AnsweredStatus
from core.plans import canonical_bid_id, plan_key
from core.quality import QualityCode
from service.fields import BidId, ContractYear, PayerPlanId, reject_null, request_config
from service.network_kit.models import (
    FLAGS,
    PARTICIPATION_SOURCE,
    REASONS_DESCRIPTION,
    NpiRequest,
    PlanStatuses,
    Reason,
    unique_npis,
)

MAX_BID_IDS = 50
MAX_NPIS = 500


class CoverageRequest(BaseModel):
    # The plans asked about: bid ids, a payer's own plan ids, or both (``_some_plan``).
    model_config = request_config(
        {"allOf": [{"anyOf": [{"required": ["bidIds"]}, {"required": ["payerPlanIds"]}]}]}
    )

    contractYear: ContractYear
    bidIds: list[BidId] | None = Field(default=None, min_length=1, max_length=MAX_BID_IDS)
    payerPlanIds: list[PayerPlanId] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_BID_IDS,
        description="plans a payer's Plan-Net directory names without a bid id (API 1.9)",
    )
    npis: list[NpiRequest] = Field(min_length=1, max_length=MAX_NPIS)
    asOf: date | None = Field(
        default=None, description="the day to evaluate for (default: today, UTC)"
    )
    view: Literal["full", "compact"] = Field(
        default="full",
        description="full: an array of plans, each provider whole under every plan; compact:"
        " each provider and its locations once (`providers`, by NPI), the plans holding only"
        " statuses that refer to them by NPI and location id",
    )

    _no_nulls = reject_null
    _unique_npis = unique_npis

    @model_validator(mode="after")
    def _some_plan(self) -> CoverageRequest:
        if self.bidIds is None and self.payerPlanIds is None:
            raise ValueError("bidIds: give 'bidIds', 'payerPlanIds' or both")
        return self

    @property
    def plans(self) -> list[tuple[str, str | None, str | None]]:
        """(key, bid id, payer plan id) of every plan asked about, in request order; the key
        as the indices hold it (core.plans.plan_key)."""
        bids = [(plan_key(bid, None), bid, None) for bid in self.bidIds or []]
        payers = [(plan_key(None, p), None, p) for p in dict.fromkeys(self.payerPlanIds or [])]
        return [*bids, *payers]

    @field_validator("bidIds")
    @classmethod
    def _canonical_bid_ids(cls, values: list[str]) -> list[str]:
        canonical: list[str] = []
        for value in values:
            bid = canonical_bid_id(value)
            if bid is None:  # the pattern already refused it; kept for direct model use
                raise ValueError(f"{value!r} is not a bid id (e.g. H1234_001_000)")
            if bid not in canonical:
                canonical.append(bid)
        return canonical


@with_config(CLOSED)
class CoverageLocation(Location):
    networkStatus: AnsweredStatus
    reason: Literal["no_participation_record", "no_network_record"] | None
    acceptingNewPatients: bool | None
    effectiveDate: IsoDate | None
    terminationDate: IsoDate | None
    participationSource: Annotated[str | None, PARTICIPATION_SOURCE]


@with_config(CLOSED)
class UnknownCoverageLocation(TypedDict):
    """A location id the request named that this provider does not have."""

    id: str
    networkStatus: Literal["unknown"]
    reason: Literal["location_not_found"]
    acceptingNewPatients: None
    effectiveDate: None
    terminationDate: None
    participationSource: None
    confidence: None


@with_config(CLOSED)
class CoverageProvider(TypedDict):
    npi: str
    provider: Provider | None
    networkStatus: AnsweredStatus
    reason: Annotated[Reason | None, Field(description=REASONS_DESCRIPTION)]
    flags: Annotated[list[QualityCode], FLAGS]
    locations: list[CoverageLocation | UnknownCoverageLocation]


@with_config(CLOSED)
class CoveragePlan(TypedDict):
    contractYear: int
    bidId: Annotated[str | None, Field(description="canonical form, e.g. H1234_001_000")]
    payerPlanId: Annotated[str | None, Field(description="as asked in `payerPlanIds`")]
    asOf: Annotated[IsoDate, Field(description="the day the participation was evaluated for")]
    plan: Plan | None
    providers: list[CoverageProvider]


# ---- view "compact": every provider once, statuses by reference (PlanStatuses: the network
# kit's shapes, service.network_kit.models) ----


@with_config(CLOSED)
class ProviderAndLocations(TypedDict):
    provider: Provider
    locations: list[Location]


@with_config(CLOSED)
class CompactCoverage(TypedDict):
    plans: list[PlanStatuses]
    providers: Annotated[
        dict[str, ProviderAndLocations],
        Field(description="every provider of the request that is in the directory, by NPI"),
    ]
