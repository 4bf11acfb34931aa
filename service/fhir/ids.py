"""The FHIR ids of what the directory keys otherwise: plan years and their networks."""

from __future__ import annotations

from core.fhir_terms import fhir_id


def network_id(year_key: str) -> str:
    """The network Organization of a plan year (``core.network.network_key``)."""
    return fhir_id(f"network-{year_key}")
