"""Per-client rate limiting: one token bucket per token subject, in this process.

Each service process limits on its own, so behind a balancer with N processes a client may get up
to N times the configured rate; a shared store (e.g. Redis with an atomic script) is the upgrade
when that matters. Answers carry the IETF httpapi draft's separate fields: ``RateLimit-Limit``
(the burst), ``RateLimit-Remaining`` (whole requests left now) and ``RateLimit-Reset`` (seconds
until the bucket is full again); a refusal is a 429 with ``Retry-After`` (seconds until the next
request is allowed).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

MAX_TRACKED_CLIENTS = 100_000


@dataclass(frozen=True)
class Decision:
    allowed: bool
    limit: int
    remaining: int
    reset_s: int
    retry_after_s: int

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset_s),
        }


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    def __init__(
        self,
        rate_per_s: float,
        burst: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_clients: int = MAX_TRACKED_CLIENTS,
    ) -> None:
        if rate_per_s <= 0:
            raise ValueError("rate_per_s must be positive")
        self._rate = rate_per_s
        self._burst = burst
        self._clock = clock
        self._max_clients = max_clients
        self._buckets: dict[str, _Bucket] = {}

    def _refilled(self, bucket: _Bucket, now: float) -> float:
        return min(self._burst, bucket.tokens + (now - bucket.updated) * self._rate)

    def _prune(self, now: float) -> None:
        """Forget clients whose bucket is full again: they are indistinguishable from new ones."""
        self._buckets = {
            key: bucket
            for key, bucket in self._buckets.items()
            if self._refilled(bucket, now) < self._burst
        }

    def take(self, key: str) -> Decision:
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self._max_clients:
                self._prune(now)
            bucket = self._buckets[key] = _Bucket(float(self._burst), now)
        bucket.tokens = self._refilled(bucket, now)
        bucket.updated = now
        allowed = bucket.tokens >= 1
        if allowed:
            bucket.tokens -= 1
        missing = self._burst - bucket.tokens
        return Decision(
            allowed=allowed,
            limit=self._burst,
            remaining=math.floor(bucket.tokens),
            reset_s=math.ceil(missing / self._rate),
            retry_after_s=0 if allowed else max(1, math.ceil((1 - bucket.tokens) / self._rate)),
        )
