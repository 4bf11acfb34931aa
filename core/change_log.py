"""The change feed as stored: each change (core.change_records) a document of the prefix's
``changes`` index, which outlives loads (it is not versioned), numbered in commit order
(``seq``); and the cursor a reader follows it by.

A job numbers its records after every committed one and they count only once the job commits:
the publication record (core.publication) then says how far the feed goes (``changesThrough``).
A reader asks for records after its cursor and up to that mark, so it never sees a record of a
job that has not committed, nor one out of order.
"""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any, Final, Literal, NotRequired, get_args

from pydantic import Field, with_config
from typing_extensions import TypedDict  # pydantic needs it for TypedDicts on Python < 3.12

from core import index_fields as ix
from core.provider_parts import CLOSED

ChangeKind = Literal[
    "network_joined",
    "network_left",
    "location_added",
    "location_removed",
    "location_changed",
    "deactivated",
    "reactivated",
    "name_changed",
    "specialty_changed",
    "accepting_new_patients_changed",
    "plan_added",
    "plan_removed",
    "plan_changed",
    "flag_raised",
]
CHANGE_KINDS: tuple[ChangeKind, ...] = get_args(ChangeKind)
CURSOR_PREFIX: Final = "c1."
DEFAULT_RETENTION_DAYS: Final = 400


@with_config(CLOSED)
class Change(TypedDict):
    """One change (core.change_records), before the feed gives it its place and instant."""

    kind: Annotated[ChangeKind, ix.KEYWORD]
    # The provider's key (its NPI, else its id); None: a plan's change.
    npi: Annotated[str | None, ix.KEYWORD]
    # The plan's key (core.plans.plan_key): a bid id or a payer's plan.
    bidId: Annotated[str | None, ix.KEYWORD]
    contractYear: Annotated[int | None, ix.INTEGER]
    before: Annotated[Any, Field(description="what it was (README: per kind)"), ix.UNPARSED]
    after: Annotated[Any, Field(description="what it is now"), ix.UNPARSED]
    source: Annotated[str, ix.KEYWORD]  # the file or directory the job read


@with_config(CLOSED)
class ChangeRecord(Change):
    """A change as the feed answers it."""

    id: Annotated[str, Field(description="its place in the feed: another change's is another")]
    at: Annotated[str, Field(description="when its job ran (UTC, to the second)"), ix.INSTANT]


class ChangeDoc(ChangeRecord):
    """The stored document (``_id``: ``id``)."""

    seq: Annotated[int, ix.LONG]
    job: Annotated[str, ix.KEYWORD]  # the job that wrote it (indexer.change_log)


@with_config(CLOSED)
class DigestPartDoc(TypedDict):
    """A version's listing digests (core.search_fields.listing_digest) as its load wrote them,
    which the next load compares with its own (indexer.digest_store): the header (``part`` -1:
    how many parts, the last change record they precede, whether an update is writing the
    version) or one part (``pairs``: keys and digests, little-endian int64s, key first)."""

    version: Annotated[str, ix.KEYWORD]
    part: Annotated[int, ix.INTEGER]
    parts: NotRequired[Annotated[int, ix.INTEGER]]
    through: NotRequired[Annotated[int, ix.LONG]]
    updating: NotRequired[Annotated[bool, ix.BOOLEAN]]
    pairs: NotRequired[Annotated[str, ix.BINARY]]
    # The keys that are no NPI (a payer's own ids), by the negative code ``pairs`` holds.
    named: NotRequired[Annotated[dict[str, str], ix.UNPARSED]]


def answered(doc: ChangeDoc) -> ChangeRecord:
    return ChangeRecord(
        id=doc["id"],
        at=doc["at"],
        kind=doc["kind"],
        npi=doc["npi"],
        bidId=doc["bidId"],
        contractYear=doc["contractYear"],
        before=doc["before"],
        after=doc["after"],
        source=doc["source"],
    )


def encode_cursor(seq: int) -> str:
    """Where a reader goes on from: after the change numbered ``seq`` (0: from the start)."""
    return CURSOR_PREFIX + base64.urlsafe_b64encode(str(seq).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    """The ``seq`` a cursor goes on after; ValueError when no cursor of ours reads so."""
    if not cursor.startswith(CURSOR_PREFIX):
        raise ValueError("not a change feed cursor")
    text = cursor[len(CURSOR_PREFIX) :]
    try:
        seq = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError) as error:
        raise ValueError("not a change feed cursor") from error
    if not seq.isdigit():
        raise ValueError("not a change feed cursor")
    return int(seq)
