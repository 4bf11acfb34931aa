"""The one source of "today" for the service and the indexer: the UTC calendar day.

Coverage dates are calendar days; taking them in UTC everywhere (never the machine's local
zone) makes the service, the indexer and the tests agree whatever zone a host runs in.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

Today = Callable[[], date]


def today_utc() -> date:
    return datetime.now(UTC).date()
