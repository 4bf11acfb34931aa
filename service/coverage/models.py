"""The coverage request (DESIGN 5.4): plans x providers, bounded, validated, canonical bid ids."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.npi import is_valid_npi
from core.plans import canonical_bid_id

MAX_BID_IDS = 50
MAX_NPIS = 500
MAX_LOCATION_IDS = 50


class NpiRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    npi: str
    locationIds: list[str] | None = Field(default=None, min_length=1, max_length=MAX_LOCATION_IDS)

    @field_validator("npi")
    @classmethod
    def _valid_npi(cls, value: str) -> str:
        if not is_valid_npi(value):
            raise ValueError("an NPI is 10 digits with a valid check digit")
        return value


class CoverageRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    contractYear: int = Field(ge=2000, le=2100)
    bidIds: list[str] = Field(min_length=1, max_length=MAX_BID_IDS)
    npis: list[NpiRequest] = Field(min_length=1, max_length=MAX_NPIS)
    asOf: date | None = None

    @field_validator("bidIds")
    @classmethod
    def _canonical_bid_ids(cls, values: list[str]) -> list[str]:
        canonical: list[str] = []
        for value in values:
            bid = canonical_bid_id(value)
            if bid is None:
                raise ValueError(
                    f"{value!r} is not a bid id (contract letter + 4 digits, 3-digit plan, "
                    "optional 3-digit segment, joined by '_' or '-', e.g. H1234_001_000)"
                )
            if bid not in canonical:
                canonical.append(bid)
        return canonical

    @field_validator("npis")
    @classmethod
    def _unique_npis(cls, values: list[NpiRequest]) -> list[NpiRequest]:
        by_npi: dict[str, NpiRequest] = {}
        for value in values:
            by_npi.setdefault(value.npi, value)  # the first mention of an NPI wins
        return list(by_npi.values())
