"""What the FHIR API serves besides providers and plans, as the plans and removals indices
store it: a payer's published HealthcareServices and Endpoints, and the resources updates
removed (core.changes). Each field annotated with how it is indexed (core.index_fields)."""

from __future__ import annotations

from typing import Annotated, NotRequired

from typing_extensions import TypedDict

from core import index_fields as ix
from core.documents import Json


class PublishedDoc(TypedDict):
    """What a payer's Plan-Net directory publishes besides providers and plans (its
    HealthcareServices and Endpoints), kept in the plans index as the FHIR API serves it:
    ``_id`` ``<resourceType>/<id>``; ``terms``: what each search parameter matches
    (core.fhir_terms.term); ``resource``: stored, not indexed."""

    resourceType: Annotated[str, ix.KEYWORD]
    id: Annotated[str, ix.KEYWORD]
    source: Annotated[str, ix.KEYWORD]
    terms: Annotated[list[str], ix.FILTER_KEYWORD]
    resource: Annotated[Json, ix.UNPARSED]
    changedAt: NotRequired[Annotated[str, ix.INSTANT]]  # core.changes: stamped when written


class Removal(TypedDict):
    """One FHIR resource an update removed (``_id``: ``<resourceType>/<id>``; core.changes)."""

    resourceType: Annotated[str, ix.KEYWORD]
    id: Annotated[str, ix.KEYWORD]
    removedAt: Annotated[str, ix.INSTANT]
