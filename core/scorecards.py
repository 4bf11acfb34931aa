"""A payer directory's scorecard, as stored and answered: one document per loaded Plan-Net
directory in the directories index (``_id`` its source, ``plan-net:<name>``), written by every
load and update (indexer.assembly.scorecard is the one rule that counts it) and answered by
``GET /v2/directories/{name}``: when it was loaded, what it holds, how fresh it is, and what each
check found.

The checks are of four kinds, each with what its rate is over (``CHECK_BASES``): a provider's
``dataQuality`` codes of the directory (core.quality: per provider it lists), an address only a
payer lists (per provider-location listing it makes), its Location resources without a phone or
a position (per Location), and what the export says of itself (references to nothing, plans
without a network, networks no plan uses). The codes of core.quality are its own; the meanings
of what only a directory as a whole has are here (``CHECK_MEANINGS``).
"""

from __future__ import annotations

from typing import Annotated, Final, Literal, cast, get_args

from pydantic import Field, with_config
from typing_extensions import TypedDict  # pydantic needs it for TypedDicts on Python < 3.12

from core import index_fields as ix
from core.confidence import PAYER_PREFIX
from core.provider_parts import CLOSED
from core.quality import MEANINGS, QUALITY_CODES, QualityCode

ListingCheck = Literal["address_unconfirmed"]  # core.quality's location reason, per listing
LocationCheck = Literal["no_phone", "zip_only_geocode"]  # per Location resource it publishes
ExportCheck = Literal["unresolved_references", "plans_without_network", "networks_without_plan"]
CheckCode = QualityCode | ListingCheck | LocationCheck | ExportCheck
PROVIDER_CHECKS = cast(tuple[QualityCode, ...], QUALITY_CODES)
LISTING_CHECKS: tuple[ListingCheck, ...] = get_args(ListingCheck)
LOCATION_CHECKS: tuple[LocationCheck, ...] = get_args(LocationCheck)
EXPORT_CHECKS: tuple[ExportCheck, ...] = get_args(ExportCheck)
CHECKS: tuple[CheckCode, ...] = (
    *PROVIDER_CHECKS, *LISTING_CHECKS, *LOCATION_CHECKS, *EXPORT_CHECKS,
)  # fmt: skip
# What a check's rate is over: the directory's providers, the listings it makes (a provider at
# a location), its Location resources, the resources read, its plans, its networks.
Base = Literal["providers", "listings", "locations", "resources", "plans", "networks"]
CHECK_BASES: dict[str, Base] = {
    **dict.fromkeys(PROVIDER_CHECKS, "providers"),
    **dict.fromkeys(LISTING_CHECKS, "listings"),
    **dict.fromkeys(LOCATION_CHECKS, "locations"),
    "unresolved_references": "resources",
    "plans_without_network": "plans",
    "networks_without_plan": "networks",
}
CHECK_MEANINGS: dict[str, str] = {
    **{code: MEANINGS[code] for code in (*PROVIDER_CHECKS, *LISTING_CHECKS)},
    "no_phone": "A Location the directory publishes has no phone number",
    "zip_only_geocode": "A Location the directory publishes has no position (placed at its"
    " ZIP code's centre at best)",
    "unresolved_references": "A resource references one the export does not hold, or holds"
    " rejected (the resource is rejected, or a plan's owner is left unnamed)",
    "plans_without_network": "An InsurancePlan names no network",
    "networks_without_plan": "A network Organization no InsurancePlan names",
}
EXAMPLES: Final = 5  # ids a check gives of what it found
Instant = Annotated[str, Field(json_schema_extra={"format": "date-time"})]
Day = Annotated[str, Field(json_schema_extra={"format": "date"})]


def directory_source(name: str) -> str:
    """The source a directory's values carry, and its scorecard's id."""
    return f"{PAYER_PREFIX}{name}"


@with_config(CLOSED)
class Check(TypedDict):
    count: Annotated[int, Field(description="how many were found")]
    outOf: Annotated[int, Field(description="how many there are to check (CHECK_BASES)")]
    rate: Annotated[float, Field(description="count / outOf, to 4 decimals; 0 when outOf is 0")]
    examples: Annotated[
        list[str],
        Field(description=f"up to {EXAMPLES} ids: NPIs (providers, listings), resource references"),
    ]


@with_config(CLOSED)
class ResourceCounts(TypedDict):
    read: int
    used: int
    rejected: int


@with_config(CLOSED)
class Holds(TypedDict):
    resources: Annotated[
        dict[str, ResourceCounts], Field(description="per FHIR resource type, as read")
    ]
    providers: Annotated[int, Field(description="providers it lists (by NPI, else resource id)")]
    locations: Annotated[int, Field(description="Location resources used")]
    plans: Annotated[int, Field(description="InsurancePlans used")]
    networks: Annotated[int, Field(description="network Organizations used")]


@with_config(CLOSED)
class Freshness(TypedDict):
    """The days of its resources' ``meta.lastUpdated`` (None: no resource gives one)."""

    oldest: Day | None
    median: Day | None
    newest: Day | None


@with_config(CLOSED)
class DirectoryDoc(TypedDict):
    """One loaded payer directory's scorecard (``_id``: its source)."""

    name: Annotated[str, Field(description="the name it was loaded under"), ix.KEYWORD]
    source: Annotated[str, Field(description="what its values carry: plan-net:<name>")]
    loadedAt: Annotated[Instant, Field(description="the start of the load that brought it")]
    updatedAt: Annotated[
        Instant, Field(description="the last load or update that changed its scorecard")
    ]
    holds: Holds
    freshness: Freshness
    checks: Annotated[
        dict[CheckCode, Check],
        Field(
            description="every check's finding, in CHECKS order (see the README)",
            json_schema_extra={"propertyNames": {"enum": list(CHECKS)}},
        ),
    ]
