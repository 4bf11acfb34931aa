"""The steps of a FHIR search, in order: read the page's cursor, query the search index, build
the resources of the hits and what they bring along, and say where the next page starts.

Practitioner, PractitionerRole and Organization are one resource per provider: a page is a
page of hits. A Location search matches the locations of a hit one by one, so a page may end
inside a hit; its cursor says how many of that hit's locations were already given. ``_text``
asks the /v2 search (service.search), which reads free text as people write it.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from elasticsearch import AsyncElasticsearch
from pydantic import ValidationError

from core.documents import Json, Location, Provider
from core.index_contract import IndexNames
from core.lookup_answers import answer_order
from service.errors import InvalidInput
from service.fhir import store
from service.fhir.bundle import Page
from service.fhir.includes import brought_along
from service.fhir.models import TEXT_PARAMETER, Search
from service.fhir.query import (
    build_query,
    decode_cursor,
    encode_cursor,
    location_matches,
)
from service.fhir.resources import location, resource_of
from service.search.models import MAX_WINDOW, SearchRequest
from service.search.places import LatLng
from service.search.search import search_providers

MAX_ROUNDS = 5  # a Location page reads at most this many pages of hits


def _hit(hit: Json) -> tuple[Provider, list[Location]]:
    source = hit["_source"]
    return source["provider"], sorted(source["locations"], key=answer_order)


async def search_resources(
    es: AsyncElasticsearch, names: IndexNames, search: Search, today: date
) -> Page:
    if search.text is not None:
        return await _text_search(es, names, search, today)
    if search.kind == "Location":
        return await _location_search(es, names, search)
    after, _ = decode_cursor(search.cursor) if search.cursor else (None, 0)
    response = await store.search(es, names, build_query(search, search.count + 1, after))
    hits = response["hits"]["hits"]
    page = Page(total=int(response["hits"]["total"]["value"]))
    for hit in hits[: search.count]:
        provider, locations = _hit(hit)
        page.matches.append(resource_of(search.kind, provider, locations))
        page.included += brought_along(search, provider, locations, locations)
    if len(hits) > search.count > 0:
        page.next_cursor = encode_cursor(hits[search.count - 1]["sort"])
    return page


async def _location_search(es: AsyncElasticsearch, names: IndexNames, search: Search) -> Page:
    after, skip = decode_cursor(search.cursor) if search.cursor else (None, 0)
    page = Page()
    if search.count == 0:
        return page
    previous: list[Any] | None = after  # the sort values of the hit before the current one
    for _ in range(MAX_ROUNDS):
        response = await store.search(es, names, build_query(search, search.count + 1, after))
        hits = response["hits"]["hits"]
        for hit in hits:
            if len(page.matches) == search.count:  # full, and this hit may have more
                page.next_cursor = encode_cursor(previous)
                return page
            provider, locations = _hit(hit)
            matched = [place for place in locations if location_matches(search, place)][skip:]
            room = search.count - len(page.matches)
            taken = matched[:room]
            page.matches += [location(provider, place) for place in taken]
            page.included += brought_along(search, provider, taken, locations)
            if len(matched) > room:
                page.next_cursor = encode_cursor(previous, skip + room)
                return page
            skip = 0
            previous = hit["sort"]
        if len(hits) <= search.count:
            return page  # the last hits: nothing after them
        after = hits[-1]["sort"]
    page.next_cursor = encode_cursor(previous)
    return page


async def _text_search(
    es: AsyncElasticsearch, names: IndexNames, search: Search, today: date
) -> Page:
    _, offset = decode_cursor(search.cursor) if search.cursor else (None, 0)
    near = search.near
    entity_type = "organization" if search.kind == "Organization" else "individual"
    try:
        request = SearchRequest.model_validate(
            {
                "query": search.text,
                "entityType": entity_type,
                "pageSize": max(search.count, 1),
                "offset": min(offset, MAX_WINDOW - 1),
                **(
                    {"location": LatLng(lat=near.lat, lng=near.lng), "radius": near.miles}
                    if near
                    else {}
                ),
            }
        )
    except ValidationError as error:
        raise InvalidInput(
            TEXT_PARAMETER, f"{TEXT_PARAMETER}: {error.errors()[0]['msg']}"
        ) from None
    answer = await search_providers(es, names, request, today=today)
    page = Page(total=answer["totalCount"])
    for result in answer["results"][: search.count]:
        provider: Provider = result  # a result is the provider with its in-radius locations
        locations = sorted(result["locations"], key=answer_order)
        page.matches.append(resource_of(search.kind, provider, locations))
        page.included += brought_along(search, provider, locations, locations)
    following = offset + search.count
    if search.count and following < min(answer["totalCount"], MAX_WINDOW):
        page.next_cursor = encode_cursor(None, following)
    return page
