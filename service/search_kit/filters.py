"""Filters /v2 search and /fhir both apply to the search index (pure)."""

from __future__ import annotations

from core.documents import EntityType, Json
from core.index_contract import SEARCH_FIELDS as F


def entity_filter(entity_type: EntityType) -> Json:
    return {"term": {F.entityType: entity_type}}


def taxonomy_filter(code: str) -> Json:
    """Providers with this NUCC code among their taxonomies."""
    return {"term": {F.taxonomyCodes: code}}
