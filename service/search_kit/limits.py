"""The bounds every search of the index keeps (pure)."""

from __future__ import annotations

from typing import Final

from core.index_contract import SEARCH_FIELDS as F

MAX_WINDOW: Final = 10_000  # Elasticsearch's result window: deeper pages need search_after
MAX_PAGE_SIZE: Final = 100
MAX_RADIUS_MILES: Final = 100.0
MAX_TEXT_LENGTH: Final = 256  # free text, in characters
CURSOR_LIFE_MINUTES: Final = 5  # a cursor's point in time lives this long after its last use
# What a hit carries: the answer's provider and locations; FHIR's resources need the in-network
# periods and the instant the provider last changed too.
ANSWER_SOURCE: Final = (F.provider, F.locations)
RESOURCE_SOURCE: Final = (*ANSWER_SOURCE, F.networks, F.changedAt)
