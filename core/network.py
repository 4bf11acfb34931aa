"""When a coverage row is in force: one rule, and the two forms the search index gives it.

A row is in force on a day when the day is on or after its effective date and before its
termination date (exclusive); an open end always matches. The coverage answer applies ``in_force``
to the rows it reads; the search index stores each in-network row's period (``network_periods``)
and the in-network filter asks for a period holding the day of the question
(``in_network_clause``), so both answer the same on any day, without a reload when a date passes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import date
from typing import Any, Literal, get_args

from core.documents import CoverageDoc, NetworkPeriod, NetworkStatus, Period
from core.fhir_terms import fhir_id
from core.index_contract import NETWORK_FIELDS, SEARCH_FIELDS
from core.npi import is_provider_key
from core.plans import plan_doc_id

# What a coverage answer can say: the stored statuses, or that the directory cannot tell.
AnsweredStatus = Literal[NetworkStatus, "unknown"]
NETWORK_STATUSES: tuple[NetworkStatus, ...] = get_args(NetworkStatus)


def in_force(row: CoverageDoc, day: date) -> bool:
    """Effective date inclusive, termination date exclusive; open ends always match."""
    starts, ends = row["effectiveDate"], row["terminationDate"]
    return (starts is None or starts <= day.isoformat()) and (
        ends is None or day.isoformat() < ends
    )


# A row's plan year and period as plain values: what a load keeps per provider while the
# coverage file streams (tuples are small and can be shared between providers).
PeriodKey = tuple[str, str | None, str | None]


def period_key(row: CoverageDoc) -> PeriodKey | None:
    """The plan year and period of an in-network row; None for any other row."""
    if row["networkStatus"] != "in_network":
        return None
    key = plan_doc_id(row["contractYear"], row["bidId"])
    return (key, row["effectiveDate"], row["terminationDate"])


def periods_of(keys: Iterable[PeriodKey | None]) -> list[NetworkPeriod]:
    """``SearchDoc.networks``: each period once, in a fixed order (a load and an update write
    the same document). A row for one location counts for the provider: results are providers."""
    periods: list[NetworkPeriod] = []
    for key, starts, ends in sorted({k for k in keys if k is not None}, key=_order):
        period: Period = {}
        if starts is not None:
            period["gte"] = starts
        if ends is not None:
            period["lt"] = ends
        periods.append({"key": key, "period": period})
    return periods


def network_periods(rows: Iterable[CoverageDoc]) -> list[NetworkPeriod]:
    return periods_of(period_key(row) for row in rows)


def _order(key: PeriodKey) -> tuple[str, str, str]:
    return key[0], key[1] or "", key[2] or "~"


def keys_in_force(periods: Iterable[NetworkPeriod], day: date) -> list[str]:
    """The plan years of a search document's in-network periods that hold ``day``."""
    today = day.isoformat()
    return list(
        dict.fromkeys(
            p["key"]
            for p in periods
            if p["period"].get("gte", today) <= today
            and ("lt" not in p["period"] or today < p["period"]["lt"])
        )
    )


def in_network_clause(key: str | None, day: date) -> dict[str, Any]:
    """Search filter: an in-network row of plan year ``key`` (None: of any plan year) is in
    force on ``day``."""
    today = day.isoformat()
    plan_year = [] if key is None else [{"term": {NETWORK_FIELDS.key: key}}]
    return {
        "nested": {
            "path": SEARCH_FIELDS.networks,
            "query": {
                "bool": {
                    "filter": [
                        *plan_year,
                        {
                            "range": {
                                NETWORK_FIELDS.period: {
                                    "gte": today,
                                    "lte": today,
                                }
                            }
                        },
                    ]
                }
            },
        }
    }


def role_id(provider_key: str, network_key: str | None) -> str:
    """A PractitionerRole's id: ``<provider key>-<plan year>`` for the role in one network (a
    plan year, ``core.plans.plan_doc_id``), the provider key alone for a provider in no
    network. Too long for a FHIR id (64), the plan year is a short hash of it."""
    if network_key is None:
        return provider_key
    whole = f"{provider_key}-{fhir_id(network_key)}"
    if len(whole) <= 64:
        return whole
    return f"{provider_key}-{hashlib.sha256(network_key.encode()).hexdigest()[:16]}"


def role_provider_key(role: str) -> str | None:
    """The provider key a ``role_id`` starts with (an NPI's ten digits or an id's 36
    characters, alone or before ``-``); None for what no role id is."""
    heads = (role[:n] for n in (10, 36) if role[n : n + 1] in ("", "-"))
    return next((head for head in heads if is_provider_key(head)), None)
