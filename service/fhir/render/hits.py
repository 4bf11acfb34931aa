"""A hit of the search index, as the FHIR API reads it (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from core.documents import Json, Location
from core.lookup_answers import answer_order
from core.network import keys_in_force
from core.search_fields import locations_of
from service.fhir.render.elements import ListedProvider, listed


@dataclass(frozen=True)
class Hit:
    provider: ListedProvider
    locations: list[Location]  # in the order the lookup answers them
    networks: list[str]  # the plan years of its in-network rows in force on the day


def hit_of(hit: Json, today: date) -> Hit:
    source = hit["_source"]
    return Hit(
        listed(source),
        sorted(locations_of(source), key=answer_order),
        keys_in_force(source.get("networks", []), today),
    )
