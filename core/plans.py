"""Medicare Advantage bid ids: contract (letter + 4 digits), plan (PBP, 3 digits), segment (3)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# What requests may send (either case, "_" or "-", segment optional).
BID_ID_PATTERN = r"^[A-Za-z][0-9]{4}[_-][0-9]{3}([_-][0-9]{3})?$"
_BID_ID = re.compile(r"([A-Z][0-9]{4})[_-]([0-9]{3})(?:[_-]([0-9]{3}))?")


def canonical_bid_id(text: str) -> str | None:
    """``H1234-001``, ``h1234_001_000`` -> ``H1234_001_000``; None when not a bid id.

    ``_`` or ``-`` separate the parts; a missing segment means ``000``.
    """
    match = _BID_ID.fullmatch(text.strip().upper())
    if match is None:
        return None
    contract, plan, segment = match.groups()
    return f"{contract}_{plan}_{segment or '000'}"


# A payer's own plan identifier (a Plan-Net plan without a bid id), as requests may send it.
PAYER_PLAN_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$"
_PAYER = "payer:"


def plan_key(bid_id: str | None, payer_plan_id: str | None) -> str:
    """How the plans and coverage indices and the search networks key a plan: its canonical
    bid id, else ``payer:`` and the payer's identifier."""
    if bid_id is not None:
        return bid_id
    if payer_plan_id is None:
        raise ValueError("a plan needs a bid id or a payer plan id")
    return _PAYER + payer_plan_id


def plan_key_of(plan: Mapping[str, Any]) -> str:
    """``plan_key`` of a plan document (``core.documents.Plan``, or a stored hit's source):
    its ``bidId``, else its ``payerPlanId``."""
    return plan_key(plan["bidId"], plan["payerPlanId"])


def plan_doc_id(contract_year: int, key: str) -> str:
    """A plan year: its year and its plan's key (``plan_key``). A plan's document id, and how
    a search document's in-network periods name it (``core.documents.NetworkPeriod.key``)."""
    return f"{contract_year}:{key}"


def plan_doc_id_of(plan: Mapping[str, Any]) -> str:
    """``plan_doc_id`` of a plan document: its document id."""
    return plan_doc_id(plan["contractYear"], plan_key_of(plan))
