"""The loaded payer directories (DESIGN 5.9): a read's parameters, and the shapes of both
answers (TypedDicts; OpenAPI is generated from them). A directory's scorecard is answered as it
is stored (core.scorecards.DirectoryDoc)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, with_config
from typing_extensions import TypedDict

from core.documents import CLOSED
from core.scorecards import CHECKS, CheckCode, DirectoryDoc, Holds, Instant

# A directory's scorecard id is its source, ``plan-net:<name>``: a name of at most 100
# characters keeps it inside Elasticsearch's 512 bytes for an id.
MAX_NAME_LENGTH = 100
NAME_RULE = (
    f"the name a directory was loaded under (--plan-net-name), 1-{MAX_NAME_LENGTH} characters"
)


class DirectoryReadParams(BaseModel):
    """GET /v2/directories/{name}: the path's name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=MAX_NAME_LENGTH, description=NAME_RULE)


@with_config(CLOSED)
class DirectorySummary(TypedDict):
    """A loaded directory in the list: what it is and holds, and what its checks found."""

    name: str
    source: Annotated[str, Field(description="what its values carry: plan-net:<name>")]
    loadedAt: Instant
    updatedAt: Instant
    holds: Holds
    summary: Annotated[
        dict[CheckCode, int],
        Field(
            description="each check that found something, with its count (the scorecard"
            " has every check, its rate and examples)",
            json_schema_extra={"propertyNames": {"enum": list(CHECKS)}},
        ),
    ]


@with_config(CLOSED)
class DirectoryList(TypedDict):
    directories: Annotated[list[DirectorySummary], Field(description="by name")]


DirectoryScorecard = DirectoryDoc  # GET /v2/directories/{name}


def summary_of(card: DirectoryDoc) -> DirectorySummary:
    return {
        "name": card["name"],
        "source": card["source"],
        "loadedAt": card["loadedAt"],
        "updatedAt": card["updatedAt"],
        "holds": card["holds"],
        "summary": {
            code: check["count"] for code, check in card["checks"].items() if check["count"]
        },
    }
