"""``_text``: a page of the /v2 search's answer (service.search), which reads free text as people
write it, each hit's resources built as the search documents' source builds them."""

from __future__ import annotations

from pydantic import ValidationError

from service.errors import InvalidInput
from service.fhir.models import ENTITY_TYPES, TEXT_PARAMETER, Near, Search
from service.fhir.render.bundle import Page
from service.fhir.render.hits import Hit, hit_of
from service.fhir.search.location_match import miles_inside_near
from service.fhir.search.paging import decode_cursor, encode_cursor
from service.fhir.sources.documents import ProviderDocuments
from service.fhir.sources.source import Reading
from service.search.models import SearchRequest
from service.search.places import LatLng
from service.search.search import question_hits
from service.search_kit.limits import MAX_WINDOW, RESOURCE_SOURCE


def _nearest_miles(near: Near | None, hit: Hit) -> float | None:
    """How far the nearest of a hit's locations is (a ``_text`` hit has no sort by distance)."""
    if near is None:
        return None
    found = [
        m for m in (miles_inside_near(near, place) for place in hit.locations) if m is not None
    ]
    return min(found, default=None)


async def text_page(reading: Reading, search: Search, documents: ProviderDocuments) -> Page:
    _, offset, _ = decode_cursor(search.cursor)
    near = search.near
    entity_type = ENTITY_TYPES[search.kind] or "individual"
    place = {"location": LatLng(lat=near.lat, lng=near.lng), "radius": near.miles} if near else {}
    try:
        request = SearchRequest.model_validate(
            {
                "query": search.text,
                "entityType": entity_type,
                "pageSize": max(search.count, 1),
                "offset": min(offset, MAX_WINDOW - 1),
                **place,
            }
        )
    except ValidationError as error:
        why = error.errors()[0]["msg"]
        raise InvalidInput(TEXT_PARAMETER, f"{TEXT_PARAMETER}: {why}") from None
    today = reading.today
    response = await question_hits(
        reading.es, reading.names, request, today=today, source=RESOURCE_SOURCE
    )
    total = int(response["hits"]["total"]["value"])
    page = Page(total=total)
    for raw in response["hits"]["hits"][: search.count]:
        hit = hit_of(raw, today)
        given = len(page.matches)
        documents.add_match(page, search, hit, reading.plan_index)
        nearest = _nearest_miles(near, hit)
        if nearest is not None:
            for resource in page.matches[given:]:
                page.miles[(search.kind, resource["id"])] = nearest
    following = offset + search.count
    if search.count and following < min(total, MAX_WINDOW):
        page.next_cursor = encode_cursor(None, following)
    return page
