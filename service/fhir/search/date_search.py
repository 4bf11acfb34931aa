"""FHIR date search on an instant held to the second (``changedAt``, core.changes): the value
searched is a range (its precision), the stored instant a point (pure).

``eq`` holds when the instant is in the value's range, ``ne`` when it is not, ``gt``/``sa`` when
it is after the range, ``lt``/``eb`` before it, ``ge``/``le`` when it is not before/after it. A
value without a time zone is read as UTC. As stored instants are whole seconds, each bound is
moved up to the next whole second, which keeps every comparison exact.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from core.changes import instant
from core.documents import Json
from core.index_fields import INSTANT

_SECOND = timedelta(seconds=1)
_CLOCK = re.compile(r"[0-9]{2}:[0-9]{2}(?P<seconds>:[0-9]{2}(?:\.(?P<fraction>[0-9]+))?)?")


def _start(value: str) -> datetime:
    if len(value) == 4:
        return datetime(int(value), 1, 1, tzinfo=UTC)
    if len(value) == 7:
        return datetime(int(value[:4]), int(value[5:]), 1, tzinfo=UTC)
    if len(value) == 10:
        return datetime.combine(date.fromisoformat(value), datetime.min.time(), UTC)
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _end(value: str, start: datetime) -> datetime:
    if len(value) == 4:
        return start.replace(year=start.year + 1)
    if len(value) == 7:
        return start.replace(year=start.year + start.month // 12, month=start.month % 12 + 1)
    if len(value) == 10:
        return start + timedelta(days=1)
    clock = _CLOCK.match(value[11:])
    assert clock is not None  # the parser let only FHIR dates through
    if not clock["seconds"]:
        return start + timedelta(minutes=1)
    fraction = clock["fraction"] or ""
    return start + timedelta(seconds=10 ** -len(fraction)) if fraction else start + _SECOND


def _whole_second_from(moment: datetime) -> datetime:
    """The first whole second at or after ``moment``."""
    floor = moment.replace(microsecond=0)
    return floor if floor == moment else floor + _SECOND


def _range(value: str) -> tuple[datetime, datetime]:
    """The instants (whole seconds) a FHIR date of any precision covers: [start, end)."""
    start = _start(value)
    return _whole_second_from(start), _whole_second_from(_end(value, start))


def _bounds(prefix: str, value: str) -> dict[str, datetime]:
    """Where a stored instant must be for ``prefix value`` (``ne``: where it must not)."""
    start, end = _range(value)
    return {
        "eq": {"gte": start, "lt": end},
        "ne": {"gte": start, "lt": end},
        "gt": {"gte": end},
        "sa": {"gte": end},
        "ge": {"gte": start},
        "lt": {"lt": start},
        "eb": {"lt": start},
        "le": {"lt": end},
    }[prefix]


def instant_query(field: str, prefix: str, value: str) -> Json:
    """The query of an instant field (``INSTANT``'s format) for ``prefix value``."""
    bounds: Json = {side: instant(at) for side, at in _bounds(prefix, value).items()}
    ranged = {"range": {field: {**bounds, "format": INSTANT.mapping["format"]}}}
    return {"bool": {"must_not": ranged}} if prefix == "ne" else ranged


def instant_matches(stored: str, prefix: str, value: str) -> bool:
    """The same comparison for an instant held in memory (``YYYY-MM-DDThh:mm:ssZ``)."""
    at = datetime.fromisoformat(stored.replace("Z", "+00:00"))
    bounds = _bounds(prefix, value)
    inside = bounds.get("gte", at) <= at and ("lt" not in bounds or at < bounds["lt"])
    return not inside if prefix == "ne" else inside
