"""GET /v2/changes: its parameters and its answer (OpenAPI is generated from them)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, with_config
from typing_extensions import TypedDict

from core.change_log import ChangeKind, ChangeRecord
from core.documents import CLOSED
from service.fields import BidId, Integral, Npi

MAX_NPIS = 100
MAX_BID_IDS = 100
MAX_PAGE_SIZE = 1000
DEFAULT_PAGE_SIZE = 100
SINCE_RULE = "a cursor a previous answer gave (nextCursor); without it, from the oldest change kept"


class ChangesParams(BaseModel):
    """The query: a change matches when its NPI is among ``npi`` or its plan among ``bidId``
    (every change when neither is given); ``kind`` narrows."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    npi: list[Npi] = Field(default_factory=list, max_length=MAX_NPIS)
    bidId: list[BidId] = Field(default_factory=list, max_length=MAX_BID_IDS)
    kind: list[ChangeKind] = Field(default_factory=list)
    since: str | None = Field(default=None, min_length=1, max_length=200, description=SINCE_RULE)
    pageSize: Integral = Field(default=DEFAULT_PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE)


@with_config(CLOSED)
class ChangePage(TypedDict):
    changes: Annotated[list[ChangeRecord], Field(description="in commit order")]
    nextCursor: Annotated[
        str,
        Field(
            description="always given: where to go on from (at the end of the feed, where to"
            " poll from next); following it never misses or repeats a change"
        ),
    ]
