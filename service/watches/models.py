"""/v2/watches: what a request gives and what the answers hold (OpenAPI is generated from them)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator, with_config
from typing_extensions import TypedDict

from core.change_log import ChangeKind
from core.documents import CLOSED
from core.watches import (
    MAX_BID_IDS,
    MAX_NPIS,
    MAX_URL_LENGTH,
    Outcome,
    WatchState,
)
from service.fields import BidId, Npi, reject_null, request_config

SECRET_PREFIX = "whsec_"
SECRET_RULE = (
    "a Standard Webhooks secret: whsec_ and the base64 of 24 to 63 random bytes; without it one"
    " is made and answered once, on creation"
)
_QUAD = "[A-Za-z0-9+/]{4}"
SECRET_PATTERN = (
    f"^whsec_(({_QUAD}){{8,21}}|({_QUAD}){{8,20}}([A-Za-z0-9+/]{{2}}==|[A-Za-z0-9+/]{{3}}=))$"
)
ID_RULE = "the id its creation answered"
_LABEL = "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_PORT = "(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})"
# http(s), a host (a name or an IPv4 address: an IPv6 one by a name), a port, a path and query.
URL_PATTERN = (
    f"^[Hh][Tt][Tt][Pp][Ss]?://{_LABEL}(\\.{_LABEL})*(:{_PORT})?"
    "([/?][!$&'()*+,;=:@/?A-Za-z0-9._~%-]*)?$"
)
# A watch follows something: an NPI or a plan.
_FOLLOWS = {
    "anyOf": [
        {"properties": {"npis": {"minItems": 1}}},
        {"required": ["bidIds"], "properties": {"bidIds": {"minItems": 1}}},
    ]
}


class WatchRequest(BaseModel):
    """A change matches the watch when its NPI is among ``npis`` or its plan among ``bidIds``;
    ``kinds``, when given, narrows both."""

    model_config = request_config(_FOLLOWS)

    npis: list[Npi] = Field(max_length=MAX_NPIS, description="the providers followed")
    bidIds: list[BidId] = Field(default_factory=list, max_length=MAX_BID_IDS)
    kinds: list[ChangeKind] = Field(default_factory=list, description="only these kinds")
    url: str = Field(
        min_length=1,
        max_length=MAX_URL_LENGTH,
        pattern=URL_PATTERN,
        description="where the webhooks are POSTed: http(s), a public address unless the"
        " operator allows the host (PD_WEBHOOK_ALLOW); redirects are not followed",
    )
    secret: str | None = Field(default=None, pattern=SECRET_PATTERN, description=SECRET_RULE)

    _no_null = reject_null

    @model_validator(mode="after")
    def _follows_something(self) -> WatchRequest:
        if not self.npis and not self.bidIds:
            raise ValueError("npis: a watch follows at least one NPI or plan (bidIds)")
        return self


class WatchIdParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern="^[0-9a-f]{32}$", description=ID_RULE)


@with_config(CLOSED)
class WatchStatus(TypedDict):
    state: Annotated[WatchState, Field(description="failing: a batch failed for a day")]
    reason: Annotated[str | None, Field(description="why it is failing")]
    deliveredThrough: Annotated[
        str,
        Field(
            description="a change feed cursor: every matching change up to it was delivered"
            " (GET /v2/changes?since= it shows what is pending)"
        ),
    ]
    failures: Annotated[int, Field(description="failed attempts of the batch being delivered")]
    nextTryAt: Annotated[str | None, Field(description="when a failed batch is tried again")]


@with_config(CLOSED)
class Watch(TypedDict):
    id: str
    npis: list[str]
    bidIds: list[str]
    kinds: list[ChangeKind]
    url: str
    createdAt: str
    status: WatchStatus


@with_config(CLOSED)
class CreatedWatch(Watch):
    secret: Annotated[str, Field(description="shown this once: verify webhooks with it")]


@with_config(CLOSED)
class WatchList(TypedDict):
    watches: list[Watch]


@with_config(CLOSED)
class DeliveryAttempt(TypedDict):
    webhookId: Annotated[str, Field(description="the webhook-id header: the same on a retry")]
    attempt: int
    at: str
    changes: Annotated[int, Field(description="how many changes the webhook carried")]
    firstChange: str
    lastChange: str
    outcome: Outcome
    httpStatus: Annotated[int | None, Field(description="what the receiver answered")]
    error: Annotated[str | None, Field(description="why the attempt failed")]
    nextTryAt: Annotated[str | None, Field(description="when the batch is tried again")]


@with_config(CLOSED)
class DeliveryList(TypedDict):
    status: WatchStatus
    deliveries: Annotated[list[DeliveryAttempt], Field(description="newest first, at most 100")]
