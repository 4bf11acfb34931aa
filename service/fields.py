"""Field types the request models share: what JSON Schema says and the service enforces agree."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, ConfigDict, Field, field_validator

from core.confidence import SCORES
from core.npi import NPI_DIGITS
from core.plans import BID_ID_PATTERN, PAYER_PLAN_ID_PATTERN


def _integral(value: Any) -> Any:
    """JSON Schema's integer includes 5.0; pydantic's strict int would refuse it."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Integral = Annotated[int, BeforeValidator(_integral)]
ContractYear = Annotated[int, Field(ge=2000, le=2100), BeforeValidator(_integral)]
# A location's confidence score (core.confidence), as a search asks at least it.
ConfidenceScore = Annotated[int, Field(ge=min(SCORES), le=max(SCORES)), BeforeValidator(_integral)]
BidId = Annotated[
    str,
    Field(
        pattern=BID_ID_PATTERN,
        description="contract letter + 4 digits, 3-digit plan, optional 3-digit segment, joined "
        "by '_' or '-' (e.g. H1234_001_000 or H1234-001); answered in the canonical form",
        examples=["H1234_001_000"],
    ),
]


PayerPlanId = Annotated[
    str,
    Field(
        pattern=PAYER_PLAN_ID_PATTERN,
        description="a payer's own identifier of a plan without a bid id, as its Plan-Net"
        " directory gives it (InsurancePlan.identifier)",
        examples=["HPID240000"],
    ),
]


def _refuse_null(value: Any) -> Any:
    if value is None:
        raise ValueError("null is not accepted: send a value or leave the field out")
    return value


# Optional fields are absent or a value, never null (the OpenAPI document says so too). An
# "after" validator: defaults are not validated, so it sees None only when a client sent null.
reject_null = field_validator("*", mode="after")(_refuse_null)

NPI_RULE = (
    "10 digits; one whose check digit (Luhn over 80840 + NPI) is wrong can never have been "
    "issued: it is answered when a payer's directory publishes it (flagged in `dataQuality`), "
    "and otherwise like any NPI the directory does not hold"
)

# The one definition of an NPI in a request: body fields and the path parameter alike.
Npi = Annotated[
    str,
    Field(
        pattern=f"^{NPI_DIGITS}$",
        json_schema_extra={"format": "npi"},
        description=NPI_RULE,
        examples=["1003000100"],
    ),
]


def _absent_not_null(schema: dict[str, Any]) -> None:
    """Optional request fields are typed ``X | None`` in Python, but JSON null is refused
    (``reject_null``): the published schema shows them as plain ``X``, without a null default."""
    for prop in schema.get("properties", {}).values():
        branches = prop.get("anyOf", [])
        if {"type": "null"} in branches:
            branches.remove({"type": "null"})
            if len(branches) == 1:
                prop.update(branches.pop())
                del prop["anyOf"]
        if "default" in prop and prop["default"] is None:
            del prop["default"]


REQUEST_CONFIG = ConfigDict(
    extra="forbid", strict=True, frozen=True, json_schema_extra=_absent_not_null
)


def request_config(rules: dict[str, Any]) -> ConfigDict:
    """``REQUEST_CONFIG`` for a model whose cross-field rules (checked by its validators) are
    stated in its JSON Schema too, so the OpenAPI document says what the model enforces."""

    def schema_extra(schema: dict[str, Any]) -> None:
        _absent_not_null(schema)
        schema.update(rules)

    return ConfigDict(extra="forbid", strict=True, frozen=True, json_schema_extra=schema_extra)
