"""A Bulk Data ``$export`` job (pure): what a kick-off records and every later request reads
(service.fhir.export.export), and its stored form, one document of the jobs index
(``<prefix>-exports``, service.fhir.export.store), which only ``stored``/``from_stored`` know."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Annotated, NotRequired, TypedDict, cast

from core.changes import instant
from core.index_fields import INSTANT, FieldNames
from service.fhir.models import ResourceType


class StoredJob(TypedDict):
    """A job as the jobs index holds it: read whole by its id; only its expiry is indexed (the
    sweep searches it). Its snapshot ids, long and many, are kept in the source, not indexed."""

    request: str
    types: list[str]
    since: str | None  # datetime.isoformat of a UTC moment
    day: str  # ISO day
    transactionTime: str  # FHIR instant (core.changes.instant)
    expires: Annotated[str, INSTANT]
    pits: dict[str, str]
    files: dict[str, int]
    built: NotRequired[dict[str, bool]]  # NotRequired: a job recorded before there were any
    ignored: NotRequired[list[list[str]]]


JOB_FIELDS = FieldNames("exports", StoredJob)


@dataclass(frozen=True)
class ExportJob:
    """One export: the snapshot it reads and the files it answers."""

    request: str  # the kick-off's URL, as the manifest repeats it
    types: tuple[ResourceType, ...]  # exported, in the manifest's order
    since: datetime | None  # ``_since`` (UTC), if asked
    day: date  # whose in-network rows the roles and affiliations are built with
    transaction_time: datetime  # what the export is the snapshot of (stored to the second)
    expires: datetime  # when its snapshots close and it is swept (stored to the second)
    # The snapshot (point in time) id of each index kind its files read, and of the removals
    # (service.fhir.export.job.DELETED) when there are any.
    pits: Mapping[str, str]
    files: Mapping[ResourceType, int]  # each type's hit files (slices)
    # Plan-built types: whether their one plan-built file holds anything (absent: it does).
    built: Mapping[ResourceType, bool] = field(default_factory=dict)
    # What lenient handling left out of the kick-off, each with why: (parameter, reason).
    ignored: tuple[tuple[str, str], ...] = ()

    def expired(self, now: datetime) -> bool:
        """Expired at ``now`` (instants compared to the second, as stored)."""
        return instant(self.expires) <= instant(now)

    def stored(self) -> StoredJob:
        """The document the jobs index holds (every key, in this order)."""
        return {
            "request": self.request,
            "types": list(self.types),
            "since": self.since.isoformat() if self.since else None,
            "day": self.day.isoformat(),
            "transactionTime": instant(self.transaction_time),
            "expires": instant(self.expires),
            "pits": dict(self.pits),
            "files": {kind: n for kind, n in self.files.items()},
            "built": {kind: holds for kind, holds in self.built.items()},
            "ignored": [list(pair) for pair in self.ignored],
        }

    @classmethod
    def from_stored(cls, doc: StoredJob) -> ExportJob:
        since = doc.get("since")
        return cls(
            request=doc["request"],
            types=tuple(cast(list[ResourceType], doc["types"])),
            since=datetime.fromisoformat(since) if since else None,
            day=date.fromisoformat(doc["day"]),
            transaction_time=datetime.fromisoformat(doc["transactionTime"]),
            expires=datetime.fromisoformat(doc["expires"]),
            pits=dict(doc["pits"]),
            files={cast(ResourceType, kind): int(n) for kind, n in doc["files"].items()},
            built=cast(dict[ResourceType, bool], dict(doc.get("built", {}))),
            ignored=tuple((name, why) for name, why in doc.get("ignored", [])),
        )
