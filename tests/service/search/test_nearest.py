"""Nearest first from a ring around the point: the same page and total as sorting the whole
radius, for pages the ring holds and pages it does not (real Elasticsearch), and the pure
choice of when the ring may answer."""

from __future__ import annotations

from typing import Any

import pytest
from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from indexer.load.run import LoadReport
from service.search.models import SearchRequest
from service.search.nearest import RADIUS_COUNT, RING_MILES, ring_answer, ring_body
from service.search.question import read_question
from tests.conftest import SAMPLE_TODAY, ApiClient
from tests.service.search.calls import LOWER_MANHATTAN, search


def _question(**body: Any) -> Any:
    return read_question(SearchRequest.model_validate(body), SAMPLE_TODAY)


def test_the_ring_answers_only_distance_sorted_pages_of_a_wider_radius() -> None:
    place = {"location": LOWER_MANHATTAN, "radius": 25}
    assert ring_body(_question(**place)) is not None  # place only: nearest first
    assert ring_body(_question(**place, query="cardiology")) is None  # by relevance
    assert ring_body(_question(**place, facets=True)) is None  # counts over the radius
    assert ring_body(_question(location=LOWER_MANHATTAN, radius=RING_MILES)) is None
    ring = ring_body(_question(**place, pageSize=10, offset=20))
    assert ring is not None
    assert ring["track_total_hits"] == 30 and ring["from"] == 20 and ring["size"] == 10
    # The page is the ring's (a post filter) and the count the whole radius's, in one search.
    assert "post_filter" in ring and ring["aggs"] == {RADIUS_COUNT: {"filter": {"match_all": {}}}}


def test_the_ring_answer_counts_the_whole_radius_or_gives_way() -> None:
    question = _question(location=LOWER_MANHATTAN, radius=25, pageSize=5)
    counted = {RADIUS_COUNT: {"doc_count": 900}}
    held = {
        "hits": {"total": {"value": 5, "relation": "gte"}, "hits": [{"_id": "1"}]},
        "aggregations": counted,
    }
    answer = ring_answer(question, held)
    assert answer is not None and answer["hits"]["total"] == {"value": 900, "relation": "eq"}
    assert "aggregations" not in answer and answer["hits"]["hits"] == [{"_id": "1"}]
    short = {"hits": {"total": {"value": 4, "relation": "eq"}, "hits": []}, "aggregations": counted}
    assert ring_answer(question, short) is None


async def _whole_radius(
    es: AsyncElasticsearch, names: IndexNames, miles: float, size: int, offset: int
) -> tuple[list[str], int]:
    """The nearest providers with a location in the radius, straight from Elasticsearch."""
    point = {"lat": LOWER_MANHATTAN["lat"], "lon": LOWER_MANHATTAN["lng"]}
    body = {
        "query": {"geo_distance": {"distance": f"{miles}mi", "points": point}},
        "sort": [{"_geo_distance": {"points": point, "mode": "min"}}, {"npi": "asc"}],
        "from": offset,
        "size": size,
        "track_total_hits": True,
        "_source": False,
    }
    response = await es.search(index=names.alias("search"), body=body)
    return [hit["_id"] for hit in response["hits"]["hits"]], response["hits"]["total"]["value"]


@pytest.mark.parametrize(("size", "offset"), [(1, 0), (3, 0), (2, 2), (100, 0), (25, 50)])
async def test_nearest_pages_are_the_whole_radius_s(
    api: ApiClient,
    auth_header: dict[str, str],
    es: AsyncElasticsearch,
    loaded_sample: tuple[IndexNames, LoadReport],
    size: int,
    offset: int,
) -> None:
    names = loaded_sample[0]
    in_ring, _ = await _whole_radius(es, names, RING_MILES, 100, 0)
    assert len(in_ring) >= 4, "the sample has providers within the ring of lower Manhattan"
    expected, total = await _whole_radius(es, names, 25, size, offset)
    body = {"location": LOWER_MANHATTAN, "radius": 25, "pageSize": size, "offset": offset}
    answer = await search(api, auth_header, **body)
    assert [r["npis"][0] for r in answer["results"]] == expected
    assert answer["totalCount"] == total
