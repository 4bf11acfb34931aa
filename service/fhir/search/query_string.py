"""A FHIR search's query string -> ``Search`` (pure).

Unknown or unsupported parameters, modifiers and includes follow the client's ``Prefer:
handling``: strict refuses them (an OperationOutcome 400), lenient (the default) leaves them out
and the Bundle's self link shows what was used. A supported parameter with a malformed value is
refused either way: guessing what it meant would answer a different question.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date, datetime
from typing import cast

from service.errors import InvalidInput
from service.fhir.models import (
    DEFAULT_COUNT,
    DEFAULT_NEAR_MILES,
    MAX_COUNT,
    MAX_NEAR_MILES,
    NEAR_UNITS,
    SUMMARIES,
    TEXT_PARAMETER,
    Clause,
    Near,
    Param,
    ResourceType,
    Search,
    Subset,
    Summary,
)
from service.fhir.search.include_table import INCLUDES, REVINCLUDES
from service.fhir.search.parameters import CONTROL_PARAMETERS, PARAMETERS
from service.search_kit.limits import MAX_TEXT_LENGTH

MODIFIERS = {"string": ("exact", "contains"), "token": (), "reference": (), "date": ()}
DATE_PREFIXES = ("eq", "ne", "gt", "lt", "ge", "le", "sa", "eb")
_DATE = re.compile(
    r"^[0-9]{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01])"
    r"(T[0-2][0-9]:[0-5][0-9](:[0-5][0-9](\.[0-9]+)?)?(Z|[+-][0-2][0-9]:[0-5][0-9])?)?)?)?$"
)
_FORMATS = {"json", "application/json", "application/fhir+json"}
_ELEMENT = re.compile(r"^[a-z][A-Za-z0-9]*$")


def _invalid(name: str, message: str) -> InvalidInput:
    return InvalidInput(name, f"{name}: {message}", code="invalid_search_parameter")


def _count(value: str) -> int:
    if not value.isdigit():
        raise _invalid("_count", "a whole number from 0")
    return min(int(value), MAX_COUNT)


def read_subset(pairs: Iterable[tuple[str, str]]) -> Subset:
    """``_summary`` (true, text, data, false) and ``_elements``, on a read or a search."""
    summary: Summary = "false"
    elements: list[str] = []
    for name, value in pairs:
        if name == "_summary" and value != "count":
            if value not in SUMMARIES:
                raise _invalid(name, f"one of count, {', '.join(SUMMARIES)}")
            summary = cast(Summary, value)
        elif name == "_elements":
            names = [v.strip() for v in value.split(",")]
            if not all(_ELEMENT.match(v) for v in names):
                raise _invalid(name, "top-level element names, comma-separated, e.g. name,address")
            elements += names
    if elements and summary != "false":
        raise _invalid("_elements", "give _summary or _elements, not both")
    return Subset(summary, tuple(elements))


def _near(value: str) -> Near:
    parts = value.split("|")
    try:
        lat, lng = float(parts[0]), float(parts[1])
        distance = float(parts[2]) if len(parts) > 2 and parts[2] else DEFAULT_NEAR_MILES
    except (ValueError, IndexError):
        raise _invalid(
            "near", "latitude|longitude|distance|unit, e.g. 41.76|-72.68|10|mi"
        ) from None
    unit = parts[3] if len(parts) > 3 and parts[3] else "mi"
    if unit not in NEAR_UNITS or len(parts) > 4:
        raise _invalid("near", f"unit {unit!r}: use mi or km")
    miles = distance * NEAR_UNITS[unit][0]
    if not (-90 <= lat <= 90 and -180 <= lng <= 180) or not (0 < miles <= MAX_NEAR_MILES):
        raise _invalid("near", f"a point on Earth and a distance up to {MAX_NEAR_MILES:g} mi")
    return Near(lat, lng, miles, unit)


def _real_date(value: str) -> bool:
    """A day that exists and a time of day that does (the pattern checks only the shape)."""
    try:
        if len(value) > 10:
            datetime.fromisoformat(value.replace("Z", "+00:00"))
        elif len(value) == 10:
            date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _date_values(name: str, values: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    prefixes: list[str] = []
    dates: list[str] = []
    for value in values:
        prefix, rest = (value[:2], value[2:]) if value[:2] in DATE_PREFIXES else ("eq", value)
        if not _DATE.match(rest) or not _real_date(rest):
            raise _invalid(name, f"{value!r} is not a FHIR date (YYYY, YYYY-MM-DD, ...)")
        prefixes.append(prefix)
        dates.append(rest)
    return tuple(prefixes), tuple(dates)


def _clause(name: str, param: Param, modifier: str | None, value: str) -> Clause:
    values = [v.replace("\\,", ",") for v in re.split(r"(?<!\\),", value)]
    if any(not v for v in values):
        raise _invalid(name, "an empty value")
    if param.type == "date":
        prefixes, dates = _date_values(name, values)
        return Clause(name, param, dates, modifier, prefixes)
    return Clause(name, param, tuple(values), modifier)


class _Reader:
    def __init__(self, kind: ResourceType, strict: bool) -> None:
        self.kind = kind
        self.strict = strict
        self.ignored: list[str] = []

    def refuse(self, name: str, why: str) -> None:
        if self.strict:
            raise InvalidInput(name, f"{name}: {why}", code="unsupported_search_parameter")
        self.ignored.append(name)

    def included(self, name: str, value: str) -> bool:
        allowed = INCLUDES[self.kind] if name == "_include" else REVINCLUDES[self.kind]
        if value not in allowed:
            self.refuse(f"{name}={value}", f"supported here: {', '.join(allowed) or 'none'}")
            return False
        return True


def read_search(
    kind: ResourceType, pairs: Iterable[tuple[str, str]], *, strict: bool = False
) -> Search:
    reader = _Reader(kind, strict)
    params = PARAMETERS[kind]
    clauses: list[Clause] = []
    applied: list[tuple[str, str]] = []
    includes: list[str] = []
    revincludes: list[str] = []
    count, cursor, near, text = None, None, None, None
    total_only = False  # _summary=count: the total, no entries (as _count=0 answers)
    pairs = list(pairs)
    for key, value in pairs:
        name, _, modifier = key.partition(":")
        if name in CONTROL_PARAMETERS:
            if name == "_count":
                count = _count(value)
            elif name == "_cursor":
                cursor = value or None
            elif name == "_format" and value not in _FORMATS:
                raise _invalid("_format", "this server answers JSON only")
            elif name == "_summary":
                total_only = total_only or value == "count"
            elif name in ("_include", "_revinclude"):
                if not reader.included(name, value):
                    continue
                (includes if name == "_include" else revincludes).append(value)
            if name != "_cursor":
                applied.append((key, value))
            continue
        param = params.get(name)
        if param is None:
            reader.refuse(name, f"not a search parameter of {kind} here")
            continue
        if modifier and modifier not in MODIFIERS.get(param.type, ()):
            reader.refuse(key, f"the modifier :{modifier} is not supported")
            continue
        applied.append((key, value))
        if name == "near":
            near = _near(value)
        elif name == TEXT_PARAMETER:
            if not value.strip() or len(value) > MAX_TEXT_LENGTH:
                raise _invalid(name, f"1 to {MAX_TEXT_LENGTH} characters")
            text = value
        else:
            clauses.append(_clause(name, param, modifier or None, value))
    if text is not None and clauses:
        raise _invalid(TEXT_PARAMETER, "combine it with near and _count only")
    return Search(
        kind,
        tuple(clauses),
        0 if total_only else DEFAULT_COUNT if count is None else count,
        cursor,
        tuple(includes),
        tuple(revincludes),
        near,
        text,
        tuple(applied),
        tuple(reader.ignored),
        subset=read_subset(pairs),
    )
