"""The request and answer shapes the coverage check and the plan search share: an asked NPI
(with its locations) and the network statuses answered for it (TypedDicts the evaluation is
type-checked against and OpenAPI is generated from)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, field_validator, with_config
from typing_extensions import TypedDict

from core.documents import CLOSED, Confidence, IsoDate, Plan
from core.network import AnsweredStatus
from core.quality import QualityCode
from service.fields import REQUEST_CONFIG, Npi, reject_null

MAX_LOCATION_IDS = 50


class NpiRequest(BaseModel):
    model_config = REQUEST_CONFIG

    npi: Npi
    locationIds: list[str] | None = Field(default=None, min_length=1, max_length=MAX_LOCATION_IDS)

    _no_nulls = reject_null


def _first_mentions(values: list[NpiRequest]) -> list[NpiRequest]:
    by_npi: dict[str, NpiRequest] = {}
    for value in values:
        by_npi.setdefault(value.npi, value)  # the first mention of an NPI wins
    return list(by_npi.values())


# A request's ``npis`` (the coverage check's, the plan search's): an NPI asked twice is
# answered once, where and as its first mention asks it.
unique_npis = field_validator("npis")(_first_mentions)

PARTICIPATION_SOURCE = Field(
    description="the file the participation record comes from: the coverage file's 'source'"
    " column, or 'plan-net:<directory>' for a payer's Plan-Net directory"
)
Reason = Literal[
    "plan_not_found",
    "provider_not_found",
    "location_not_found",
    "no_participation_record",
    "no_network_record",
]
REASONS_DESCRIPTION = (
    "why the status is unknown, or why there is no record in force: plan_not_found,"
    " provider_not_found, location_not_found; no_network_record (unknown: the plan's"
    " participation rows of the year do not name the provider, so the directory cannot say"
    " either way); no_participation_record (out_of_network: rows name the provider, none in"
    " force on the day)"
)


CONFIDENCE = Field(
    description="how far to believe the provider practises there (the location's own; null:"
    " location_not_found)"
)
FLAGS = Field(
    description="the codes of the provider's `dataQuality` notes: what its sources published"
    " against it (npi_deactivated, name_differs_from_nppes, ...), whatever the network status"
)


@with_config(CLOSED)
class LocationStatus(TypedDict):
    id: Annotated[str, Field(description="a location id of the provider in `providers`")]
    networkStatus: AnsweredStatus
    reason: Literal["no_participation_record", "no_network_record", "location_not_found"] | None
    acceptingNewPatients: bool | None
    effectiveDate: IsoDate | None
    terminationDate: IsoDate | None
    participationSource: Annotated[str | None, PARTICIPATION_SOURCE]
    confidence: Annotated[Confidence | None, CONFIDENCE]


@with_config(CLOSED)
class ProviderStatus(TypedDict):
    npi: Annotated[str, Field(description="a key of `providers` unless provider_not_found")]
    networkStatus: AnsweredStatus
    reason: Annotated[Reason | None, Field(description=REASONS_DESCRIPTION)]
    flags: Annotated[list[QualityCode], FLAGS]
    locations: list[LocationStatus]


@with_config(CLOSED)
class PlanStatuses(TypedDict):
    contractYear: int
    bidId: str | None
    payerPlanId: str | None
    asOf: IsoDate
    plan: Plan | None
    providers: list[ProviderStatus]
