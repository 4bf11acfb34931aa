"""A page of a search whose hits each expand into several resources: a Location search (the
locations of a hit matched one by one, ``location_match.location_matches``) and a PractitionerRole
search (a role per network of a hit, only the asked networks' with ``network``). A page may
end inside a hit, and its cursor says how many of that hit's resources were already given."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol

from elasticsearch import AsyncElasticsearch

from core.documents import Json, Location
from core.index_contract import SEARCH_FIELDS as F
from core.index_contract import IndexNames
from core.network import keys_in_force, role_id
from core.search_fields import LOCATIONS_SOURCE, locations_of
from service.fhir.models import Resource, ResourceType, Search
from service.fhir.render.bundle import Page
from service.fhir.render.hits import Hit, hit_of
from service.fhir.render.includes import brought_along
from service.fhir.render.resources import location, practitioner_roles
from service.fhir.search.location_match import location_matches, miles_inside_near
from service.fhir.search.paging import decode_cursor, encode_cursor
from service.fhir.search.query import build_query
from service.fhir.sources.documents import ProviderDocuments, role_networks
from service.fhir.sources.source import Reading
from service.search_kit import store as search_index
from service.search_kit.geo import sorted_miles

MAX_ROUNDS = 5  # a page reads at most this many pages of hits
COUNT_PAGE = 1000
MAX_COUNTED_HITS = 20_000  # past this many providers, a filtered count is not given

# A resource of a hit, the locations it is or points at, and how far it is (``near``).
Expanded = tuple[Resource, Sequence[Location], float | None]


class Expansion(Protocol):
    """How one hit expands: into its resources that match (with the locations each is or
    points at, and how far it is), and how many of them match (a count: the hit's source)."""

    def expanded(self, search: Search, hit: Hit, sort: list[Any]) -> list[Expanded]: ...

    def counted(self, search: Search, source: Json, today: date) -> int: ...


class SiteExpansion:
    """A Location search: the locations of a hit, matched one by one."""

    def expanded(self, search: Search, hit: Hit, sort: list[Any]) -> list[Expanded]:
        near = search.near
        matched = [place for place in hit.locations if location_matches(search, place)]
        return [
            (
                location(hit.provider, place),
                [place],
                miles_inside_near(near, place) if near else None,
            )
            for place in matched
        ]

    def counted(self, search: Search, source: Json, today: date) -> int:
        return sum(1 for place in locations_of(source) if location_matches(search, place))


def _asked_for(search: Search, role: str) -> bool:
    """Whether a role's id is one every ``_id`` clause names (the query finds its provider)."""
    return all(role in c.values for c in search.clauses if c.name == "_id")


class RoleExpansion:
    """A PractitionerRole search: a role per network of a hit, only the asked networks'."""

    def expanded(self, search: Search, hit: Hit, sort: list[Any]) -> list[Expanded]:
        chosen = role_networks(search, hit.networks)
        if search.network_keys and not chosen:
            return []
        miles = sorted_miles(sort[0]) if search.near is not None else None
        roles = practitioner_roles(hit.provider, hit.locations, chosen)
        return [(role, hit.locations, miles) for role in roles if _asked_for(search, role["id"])]

    def counted(self, search: Search, source: Json, today: date) -> int:
        chosen = role_networks(search, keys_in_force(source.get("networks", []), today))
        keys: list[str | None] = [*chosen] or ([] if search.network_keys else [None])
        return sum(1 for key in keys if _asked_for(search, role_id(source["npi"], key)))


async def expanded_page(
    es: AsyncElasticsearch,
    names: IndexNames,
    search: Search,
    today: date,
    expansion: Expansion,
    plans: Mapping[str, Resource] | None = None,
) -> Page:
    """``plans``: the payers and networks by reference (a role's ``_include`` of its network).
    The page's total is left out; ``_summary=count`` counts (``expanded_total``)."""
    after, skip, _ = decode_cursor(search.cursor)
    page = Page()
    if search.count == 0:
        page.total = await expanded_total(es, names, search, today, expansion)
        return page
    previous: list[Any] | None = after  # the sort values of the hit before the current one
    for _ in range(MAX_ROUNDS):
        body = build_query(search, search.count + 1, after, today)
        response = await search_index.search(es, names, body)
        hits = response["hits"]["hits"]
        for raw in hits:
            if len(page.matches) == search.count:  # full, and this hit may have more
                page.next_cursor = encode_cursor(previous)
                return page
            hit = hit_of(raw, today)
            expanded = expansion.expanded(search, hit, raw["sort"])[skip:]
            room = search.count - len(page.matches)
            taken = expanded[:room]
            for found, _, miles in taken:
                page.matches.append(found)
                if miles is not None:
                    page.miles[(search.kind, found["id"])] = miles
            pointed = list({p["id"]: p for _, places, _ in taken for p in places}.values())
            if taken:
                page.included += brought_along(
                    search, hit.provider, pointed, hit.locations, hit.networks, plans
                )
            if len(expanded) > room:
                page.next_cursor = encode_cursor(previous, skip + room)
                return page
            skip = 0
            previous = raw["sort"]
        if len(hits) <= search.count:
            return page  # the last hits: nothing after them
        after = hits[-1]["sort"]
    page.next_cursor = encode_cursor(previous)
    return page


async def expanded_total(
    es: AsyncElasticsearch, names: IndexNames, search: Search, today: date, expansion: Expansion
) -> int | None:
    """How many resources match (``_summary=count``, ``_count=0``): the hits' locations or
    roles counted one by one (the search index keeps no per-location or per-network values to
    count), for at most MAX_COUNTED_HITS hits; None past them."""
    total, after = 0, None
    for _ in range(MAX_COUNTED_HITS // COUNT_PAGE):
        body = build_query(search, COUNT_PAGE, after, today) | {
            "_source": [*LOCATIONS_SOURCE, F.networks, F.npi]
        }
        hits = (await search_index.search(es, names, body))["hits"]["hits"]
        total += sum(expansion.counted(search, raw["_source"], today) for raw in hits)
        if len(hits) < COUNT_PAGE:
            return total
        after = hits[-1]["sort"]
    return None


@dataclass(frozen=True)
class PractitionerRoles:
    """The PractitionerRoles source: pages of hits expanded into roles; a role read as the
    search documents' source reads it (the provider its id names)."""

    documents: ProviderDocuments

    async def page(self, reading: Reading, search: Search) -> Page:
        return await expanded_page(
            reading.es, reading.names, search, reading.today, RoleExpansion(), reading.plan_index
        )

    async def read(self, reading: Reading, kind: ResourceType, resource_id: str) -> Resource | None:
        return await self.documents.read(reading, kind, resource_id)

    async def count(self, reading: Reading, search: Search) -> int | None:
        return await expanded_total(
            reading.es, reading.names, search, reading.today, RoleExpansion()
        )
