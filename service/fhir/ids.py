"""The FHIR ids of what the directory keys otherwise: plan years and their networks."""

from __future__ import annotations

import re

_NOT_IN_ID = re.compile(r"[^A-Za-z0-9.-]+")


def fhir_id(text: str) -> str:
    """A FHIR id (letters, digits, '-' and '.', at most 64) made from any key."""
    return _NOT_IN_ID.sub("-", text).strip("-")[:64]


def network_id(year_key: str) -> str:
    """The network Organization of a plan year (``core.network.network_key``)."""
    return fhir_id(f"network-{year_key}")
