"""What a plan costs, how its contract rates and where it is sold: the Plan Finder facts the
plans index keeps beside each plan (``OfferedPlanDoc``), defined once for the indexer, the
service's plan answers and their OpenAPI schemas.

Money is in US dollars as numbers (``core.money`` reads the files' display strings); a fact the
files lack is null, never guessed.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, with_config
from typing_extensions import TypedDict

from core import index_fields as ix
from core.documents import CLOSED, Plan
from core.index_fields import Indexed, field_names

# What a contract's first letter says it is (CMS contract numbering).
ContractKind = Literal["H", "R", "E", "S"]
CONTRACT_KINDS: dict[ContractKind, str] = {
    "H": "local Medicare Advantage (HMO, PPO, PFFS, cost, PACE, Medicare-Medicaid)",
    "R": "regional PPO",
    "E": "employer or union direct contract",
    "S": "stand-alone prescription drug plan (no provider network)",
}
MEDICARE_ADVANTAGE_KINDS: tuple[ContractKind, ...] = ("H", "R", "E")
# The Plan Finder's SNP kinds, and how plan types and names mark them ("HMO D-SNP").
SNP_MARKERS = {"D-SNP": "Dual Eligible", "C-SNP": "Chronic Condition", "I-SNP": "Institutional"}
Dollars = Annotated[float, Field(ge=0, description="US dollars")]


@with_config(CLOSED)
class MaxOutOfPocket(TypedDict):
    inNetwork: Dollars | None
    combined: Annotated[
        Dollars | None, Field(description="in and out of network, where the plan states one")
    ]


@with_config(CLOSED)
class StarRating(TypedDict):
    """The contract's Medicare star rating for the plan year (half stars, 1 to 5)."""

    overall: Annotated[float | None, ix.FLOAT]
    partC: float | None
    partD: float | None
    year: int


@with_config(CLOSED)
class AreaCounty(TypedDict):
    fips: Annotated[str, Field(description="5-digit county FIPS code")]
    name: str
    state: str


@with_config(CLOSED)
class ServiceArea(TypedDict):
    states: Annotated[list[str], Field(description="USPS codes")]
    counties: list[AreaCounty]
    zipCount: Annotated[int, Field(description="ZIP codes where the plan is offered")]


@with_config(CLOSED)
class OfferedPlan(Plan):
    """A plan with its costs and its contract's star rating."""

    monthlyPremium: Annotated[Dollars | None, ix.FLOAT]
    healthDeductible: Dollars | None
    drugDeductible: Dollars | None
    maxOutOfPocket: MaxOutOfPocket
    starRating: Annotated[
        StarRating | None,
        Field(description="null when the contract is unrated or new"),
        Indexed.object(),
    ]
    specialNeeds: Annotated[bool, Field(description="a special needs plan (SNP)"), ix.BOOLEAN]


class OfferedPlanDoc(OfferedPlan):
    """A Plan Finder plan as the plans index holds it: where it is sold, for the area search
    (``zips``, ``countyFips``) and for its own answer (``serviceArea``)."""

    serviceArea: ServiceArea
    # A plan's ZIPs (thousands for a state-wide plan) are kept in the stored source, as every
    # field is: a partial update (networkRows) rewrites a document from it. Reads leave them
    # out (core.index_contract.PLAN_READ_SOURCE); zipsDigest says they changed.
    zips: Annotated[list[str], ix.FILTER_KEYWORD]
    zipsDigest: str
    countyFips: Annotated[list[str], ix.FILTER_KEYWORD]


class PlanRows(TypedDict):
    """On every plan document (Plan Finder's and payers'), ``networkRows``: whether
    participation rows of the plan's year name anyone (set by the load, by updates that write
    rows, carried over by update --plans; never cleared, so a plan that loses its last row reads
    out of network, not unknown). A plan without any has no network in the directory: it cannot
    say whether a provider is in it."""

    networkRows: bool


# What reads of a plan ask its source for: an OfferedPlan's fields (the plan answers), a Plan's
# (the coverage answer).
OFFER_FIELDS: list[str] = field_names(OfferedPlan)
PLAN_SOURCE_FIELDS: list[str] = field_names(Plan)


def no_offer_facts() -> dict[str, object]:
    """The facts of a plan the Plan Finder files do not describe (a payer's own plan)."""
    return {
        "monthlyPremium": None,
        "healthDeductible": None,
        "drugDeductible": None,
        "maxOutOfPocket": {"inNetwork": None, "combined": None},
        "starRating": None,
        "specialNeeds": False,
    }
