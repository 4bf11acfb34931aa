"""A page of a Location search. A hit is a provider; its locations are matched one by one
(``query.location_matches``), so a page may end inside a hit, and its cursor says how many of
that hit's locations were already given."""

from __future__ import annotations

from datetime import date
from typing import Any

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from service.fhir.bundle import Page
from service.fhir.hits import hit_of
from service.fhir.includes import brought_along
from service.fhir.models import Search
from service.fhir.paging import decode_cursor, encode_cursor
from service.fhir.query import build_query, location_matches, miles_inside_near
from service.fhir.resources import location
from service.search_kit import store as search_index

MAX_ROUNDS = 5  # a page reads at most this many pages of hits
COUNT_PAGE = 1000
MAX_COUNTED_HITS = 20_000  # past this many providers, a filtered count is not given


async def location_page(
    es: AsyncElasticsearch, names: IndexNames, search: Search, today: date
) -> Page:
    after, skip, _ = decode_cursor(search.cursor)
    page = Page()
    if search.count == 0:
        page.total = await location_total(es, names, search, today)
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
            matched = [place for place in hit.locations if location_matches(search, place)]
            matched = matched[skip:]
            room = search.count - len(page.matches)
            taken = matched[:room]
            for place in taken:
                found = location(hit.provider, place)
                page.matches.append(found)
                miles = miles_inside_near(search.near, place) if search.near else None
                if miles is not None:
                    page.miles[("Location", found["id"])] = miles
            page.included += brought_along(search, hit.provider, taken, hit.locations, hit.networks)
            if len(matched) > room:
                page.next_cursor = encode_cursor(previous, skip + room)
                return page
            skip = 0
            previous = raw["sort"]
        if len(hits) <= search.count:
            return page  # the last hits: nothing after them
        after = hits[-1]["sort"]
    page.next_cursor = encode_cursor(previous)
    return page


async def location_total(
    es: AsyncElasticsearch, names: IndexNames, search: Search, today: date
) -> int | None:
    """How many locations match (``_summary=count``, ``_count=0``): the locations of the hits
    checked one by one (the search index keeps no per-location values to count), for at most
    MAX_COUNTED_HITS hits; None past them."""
    total, after = 0, None
    for _ in range(MAX_COUNTED_HITS // COUNT_PAGE):
        body = build_query(search, COUNT_PAGE, after, today) | {"_source": ["locations"]}
        hits = (await search_index.search(es, names, body))["hits"]["hits"]
        for raw in hits:
            places = raw["_source"]["locations"]
            total += sum(1 for place in places if location_matches(search, place))
        if len(hits) < COUNT_PAGE:
            return total
        after = hits[-1]["sort"]
    return None
