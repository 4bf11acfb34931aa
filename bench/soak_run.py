"""One soak run's records (bench/soak.py): the calls, their results, the samples, the capacity, the
reindex, the rows and verdicts, and how an answer counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Outcome = Literal["2xx", "expected_4xx", "unexpected_4xx", "5xx", "conn_error", "other"]
OUTCOMES: tuple[Outcome, ...] = (
    "2xx", "expected_4xx", "unexpected_4xx", "5xx", "conn_error", "other"
)  # fmt: skip
FAILURES: tuple[Outcome, ...] = ("unexpected_4xx", "5xx", "conn_error", "other")
MINUTE_S = 60.0
WARM_UP_S = 5.0  # closed loop before the capacity is measured (connections, caches)
SETTLE_S = 5.0  # idle between the capacity run and the open loop
STOP_GRACE_S = 30.0  # a terminated load's time to delete its new indices and release its lock
RSS_TOLERANCE = 0.10  # of the value after the first minute
P99_TOLERANCE = 0.20  # of the second minute's
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
# Shares of the open loop's requests by kind ("a few bad requests").
WEIGHTS: Mapping[str, float] = {
    "search": 0.56, "lookup": 0.16, "locations": 0.12, "coverage": 0.12, "bad": 0.04
}  # fmt: skip
FILTERS: Sequence[Mapping[str, Any]] = (
    {"gender": "F"},
    {"language": "Spanish"},
    {"pcpEligible": True},
    {"entityType": "organization"},
    {"specialty": "Internal Medicine"},
    {"taxonomyCode": "207Q00000X"},  # Family Medicine
)
COVERAGE = "/v2/providers/coverage"
MISSPELT = ("cardiolgist", "dermatoligist", "pediatrision", "orthopedic surgen", "famly doctor")


@dataclass(frozen=True, slots=True)
class Call:
    """One prepared request of the mix."""

    kind: str  # search | lookup | locations | coverage | bad
    label: str  # the query class, or which bad request
    method: str
    path: str
    body: bytes | None = None
    expect: int = 200  # the status a correct service answers


@dataclass(frozen=True, slots=True)
class Result:
    at: float  # its scheduled start, s since the open loop started
    kind: str
    ms: float  # from its actual start to the end of the answer
    status: str  # HTTP status, or the exception's class name
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class Late:
    at: float  # its scheduled start
    lag_ms: float
    sent: bool  # False: every in-flight slot was busy, so it was not sent


@dataclass(frozen=True, slots=True)
class ProcessSample:
    minute: int  # at the end of this minute (0: as the open loop starts)
    rss_mb: float | None  # None: the process is gone
    fds: int | None


@dataclass(frozen=True)
class Capacity:
    clients: int
    seconds: float
    requests: int
    failed: int  # answers that are neither a 2xx nor the expected 4xx
    rate: float
    p50_ms: float
    p99_ms: float


@dataclass
class Reindex:
    planned_s: float  # when, s since the open loop started
    command: list[str]
    started_s: float | None = None
    seconds: float | None = None
    returncode: int | None = None


@dataclass(frozen=True)
class MinuteRow:
    minute: int  # 1-based
    requests: int
    late: int
    outcomes: dict[str, int]
    p50_ms: float  # of the requests that are not bad on purpose and were answered
    p99_ms: float
    rss_mb: float | None  # at the minute's end
    fds: int | None
    reindex: bool  # the reindex ran during part of this minute


@dataclass(frozen=True)
class Verdict:
    name: str
    passed: bool | None  # None: not measurable in this run
    detail: str


@dataclass
class Run:
    rate: float
    seconds: float
    results: list[Result] = field(default_factory=list)
    late: list[Late] = field(default_factory=list)
    samples: list[ProcessSample] = field(default_factory=list)


# ---- pure: outcomes, the workload's order, per-minute rows, verdicts ----


def classify(status: int | None, expect: int) -> Outcome:
    """``status`` (None: no answer) of a request whose right answer is ``expect``."""
    if status is None:
        return "conn_error"
    if status >= 500:
        return "5xx"
    if status >= 400:
        return "expected_4xx" if status == expect else "unexpected_4xx"
    return "2xx" if 200 <= status < 300 and expect < 300 else "other"
