"""``minConfidence`` in POST /v2/providers/search, against the sample loaded with its Plan-Net
export (mixed scores: a payer's listings NPPES does not confirm score low, agreeing ones high).

What is expected is read from the stored search documents through the Elasticsearch client
(each location's stored confidence and coordinates), measured with tests.source_rows.miles:
never through the service's code. A location this close to the radius's edge may fall either
side of it (Elasticsearch's rounding), so such providers are left out of exact comparisons."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import pytest
from elasticsearch import AsyncElasticsearch

from core.documents import Json
from core.index_contract import IndexNames
from core.lookup_answers import stored_locations, stored_provider
from tests.conftest import ApiClient
from tests.service.search.calls import search
from tests.source_rows import miles

Point = tuple[float, float]
# Places where the sample has locations of several scores: (point, radius in miles).
PLACES: dict[str, tuple[Point, float]] = {
    "portland-me": ((43.6591, -70.2568), 25.0),  # 1 to 5
    "lawrence-ma": ((42.7121, -71.1522), 8.0),  # 1 and 3
    "boston": ((42.3611, -71.0682), 4.0),  # almost only 1
}
PROVIDENCE: Point = (41.8240, -71.4128)  # only 1 (a payer's listings nothing confirms)
ASKED = [2, 3, 4, 5]
EDGE_MILES = 0.01  # a location this near the edge may be counted either side of it
SAME_MILES = 0.01  # a distance told equals the one worked out here (rounding)
PAGE = 20  # small pages, so that wide answers are read through several cursors


@pytest.fixture
def served_names(plan_net_sample: IndexNames) -> IndexNames:
    """The sample with its Plan-Net export (tests/conftest.py), read-only."""
    return plan_net_sample


@dataclass(frozen=True)
class Stored:
    key: str
    gender: str | None
    locations: list[Json]


@pytest.fixture(scope="module")
async def stored(es: AsyncElasticsearch, plan_net_sample: IndexNames) -> list[Stored]:
    """Every provider's key, gender and locations, read directly from the lookup index (which
    stores each location whole)."""
    response = await es.search(
        index=plan_net_sample.alias("providers"), size=10_000, query={"match_all": {}}
    )
    assert response["hits"]["total"]["value"] < 10_000
    stored: list[Stored] = []
    for hit in response["hits"]["hits"]:
        provider = stored_provider(hit["_source"])
        locations = stored_locations(hit["_source"])
        stored.append(Stored(_key(provider), provider["gender"], locations))  # type: ignore[arg-type]
    return stored


def _key(provider: Json) -> str:
    return str(provider["npis"][0]) if provider["npis"] else str(provider["id"])


def _score(location: Json) -> int:
    return int(location["confidence"]["score"])


def _distances(doc: Stored, least: int, point: Point) -> dict[str, float]:
    """Location id -> miles, for the doc's placed locations scoring ``least`` or more."""
    return {
        loc["id"]: miles(point, (loc["address"]["lat"], loc["address"]["lng"]))
        for loc in doc.locations
        if _score(loc) >= least and loc["address"]["lat"] is not None
    }


def _inside(doc: Stored, least: int, point: Point, radius: float) -> dict[str, float] | None:
    """The doc's qualifying locations inside the radius; None when one lies on the edge."""
    found = _distances(doc, least, point)
    if any(abs(d - radius) < EDGE_MILES for d in found.values()):
        return None
    return {loc: d for loc, d in found.items() if d <= radius}


@dataclass(frozen=True)
class Expected:
    inside: dict[str, dict[str, float]]  # provider key -> its qualifying locations inside
    edge: set[str]  # providers with a qualifying location on the edge


def expected(
    docs: list[Stored], least: int, point: Point, radius: float, gender: str | None = None
) -> Expected:
    inside: dict[str, dict[str, float]] = {}
    edge: set[str] = set()
    for doc in docs:
        if gender is not None and doc.gender != gender:
            continue
        found = _inside(doc, least, point, radius)
        if found is None:
            edge.add(doc.key)
        elif found:
            inside[doc.key] = found
    return Expected(inside, edge)


async def every_page(api: ApiClient, auth: dict[str, str], **body: Any) -> tuple[Json, list[Json]]:
    """The first page and every result, following the cursors."""
    first = page = await search(api, auth, pageSize=PAGE, **body)
    results = list(page["results"])
    while page["nextCursor"]:
        page = await search(api, auth, cursor=page["nextCursor"], pageSize=PAGE)
        assert (
            page["interpretedQuery"]["minConfidence"] == first["interpretedQuery"]["minConfidence"]
        )
        results.extend(page["results"])
    return first, results


def test_the_places_hold_locations_minconfidence_keeps_and_drops(stored: list[Stored]) -> None:
    """The cases below mean something: at each place the filter keeps some providers and
    leaves others out."""
    for name, (point, radius) in PLACES.items():
        every = expected(stored, 1, point, radius).inside
        counts = {k: len(expected(stored, k, point, radius).inside) for k in ASKED}
        assert 0 < counts[3] < len(every), (name, len(every), counts)
    portland, radius = PLACES["portland-me"]
    assert expected(stored, 5, portland, radius).inside  # and the highest score there too


@pytest.mark.parametrize("place", sorted(PLACES))
@pytest.mark.parametrize("least", ASKED)
@pytest.mark.parametrize("sort", ["distance", "relevance"])
async def test_a_radius_finds_exactly_the_providers_with_a_qualifying_location_in_it(
    api: ApiClient,
    auth_header: dict[str, str],
    stored: list[Stored],
    place: str,
    least: int,
    sort: str,
) -> None:
    point, radius = PLACES[place]
    want = expected(stored, least, point, radius)
    location = {"lat": point[0], "lng": point[1]}
    first, results = await every_page(
        api, auth_header, location=location, radius=radius, minConfidence=least, sort=sort
    )
    assert first["interpretedQuery"]["minConfidence"] == least
    found = [_result_key(r) for r in results]
    assert len(found) == len(set(found))
    assert set(want.inside) <= set(found) <= set(want.inside) | want.edge
    assert len(want.inside) <= first["totalCount"] <= len(want.inside) + len(want.edge)
    assert first["totalCount"] == len(found)
    for result in results:
        _check_locations(result, want.inside.get(_result_key(result)), least)
    if sort == "distance":
        # Each provider's nearest qualifying location, measured here (edge ones: as told).
        nearest = [
            min(want.inside[key].values()) if key in want.inside else r["locations"][0]["distance"]
            for key, r in zip(found, results, strict=True)
        ]
        assert all(a <= b + SAME_MILES for a, b in itertools.pairwise(nearest))


def _result_key(result: Json) -> str:
    return _key(result)


def _check_locations(result: Json, want: dict[str, float] | None, least: int) -> None:
    """Only qualifying locations inside the radius, each at its distance, nearest first."""
    assert result["locations"], result
    assert all(_score(loc) >= least for loc in result["locations"])
    told = [loc["distance"] for loc in result["locations"]]
    assert told == sorted(told)
    if want is None:  # on the edge: which side is Elasticsearch's rounding
        return
    assert {loc["id"] for loc in result["locations"]} == set(want)
    for loc in result["locations"]:
        assert abs(loc["distance"] - want[loc["id"]]) <= SAME_MILES


@pytest.mark.parametrize("least", [3, 5])
async def test_the_other_filters_still_hold_and_every_count_is_the_filtered_one(
    api: ApiClient, auth_header: dict[str, str], stored: list[Stored], least: int
) -> None:
    """With a filter beside it, and counted three ways: the nearest-first ring (a small page
    sorted by distance), the whole radius with facets, and the facets' own counts."""
    point, radius = PLACES["portland-me"]
    want = expected(stored, least, point, radius, gender="F")
    assert not want.edge
    location = {"lat": point[0], "lng": point[1]}
    body = {"location": location, "radius": radius, "minConfidence": least, "gender": "F"}
    ring = await search(api, auth_header, **body, sort="distance", pageSize=2)
    assert ring["totalCount"] == len(want.inside)
    assert [_result_key(r) for r in ring["results"]] == _nearest(want, 2)
    faceted = await search(api, auth_header, **body, facets=True, pageSize=100)
    assert faceted["totalCount"] == len(want.inside)
    assert {_result_key(r) for r in faceted["results"]} == set(want.inside)
    assert _facet(faceted, "confidence") == _by_best_score(stored, want, point)
    assert _facet(faceted, "distance") == _by_band(want, radius)


def _nearest(want: Expected, count: int) -> list[str]:
    ordered = sorted(want.inside, key=lambda key: (min(want.inside[key].values()), key))
    return ordered[:count]


def _facet(answer: Json, name: str) -> dict[str, int]:
    return {bucket["value"]: bucket["count"] for bucket in answer["facets"][name]}


def _by_best_score(docs: list[Stored], want: Expected, point: Point) -> dict[str, int]:
    """Providers by the best score of their locations inside the radius."""
    counts = dict.fromkeys(["1", "2", "3", "4", "5"], 0)
    by_key = {doc.key: doc for doc in docs}
    for key, inside in want.inside.items():
        best = max(_score(loc) for loc in by_key[key].locations if loc["id"] in inside)
        counts[str(best)] += 1
    return counts


def _by_band(want: Expected, radius: float) -> dict[str, int]:
    """Providers per distance band where they have a location inside the radius."""
    bands = {"0-5": (0, 5), "5-10": (5, 10), "10-25": (10, 25), "25+": (25, float("inf"))}
    return {
        name: sum(
            1 for inside in want.inside.values() if any(low <= d < high for d in inside.values())
        )
        for name, (low, high) in bands.items()
    }


QUERIES = ["nurse practitioner", "radiology"]  # providers of every score the sample has


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("least", [2, 3, 5])
async def test_without_a_place_only_providers_with_a_qualifying_location_anywhere(
    api: ApiClient, auth_header: dict[str, str], stored: list[Stored], query: str, least: int
) -> None:
    """The same words without minConfidence, less the providers none of whose locations
    reaches it (read from the stored documents); each answered with those that do."""
    by_key = {doc.key: doc for doc in stored}
    _, every = await every_page(api, auth_header, query=query)
    kept = {
        _result_key(r)
        for r in every
        if any(_score(loc) >= least for loc in by_key[_result_key(r)].locations)
    }
    assert kept and len(kept) < len(every)  # the filter does something here
    first, results = await every_page(api, auth_header, query=query, minConfidence=least)
    assert first["totalCount"] == len(kept) == len(results)
    assert {_result_key(r) for r in results} == kept
    for result in results:
        want = {loc["id"] for loc in by_key[_result_key(result)].locations if _score(loc) >= least}
        assert sorted(loc["id"] for loc in result["locations"]) == sorted(want)


@pytest.mark.parametrize(
    "body",
    [
        {"location": {"lat": 43.6591, "lng": -70.2568}, "radius": 25.0, "facets": True},
        {"location": {"lat": 42.7121, "lng": -71.1522}, "radius": 8.0, "sort": "distance"},
        {"location": "Portland, ME", "query": "family medicine", "facets": True},
        {"query": "clinic", "facets": True},
    ],
)
async def test_min_confidence_1_answers_as_without_it(
    api: ApiClient, auth_header: dict[str, str], body: Json
) -> None:
    without = await search(api, auth_header, **body)
    with_one = await search(api, auth_header, **body, minConfidence=1)
    assert without["results"] and without["interpretedQuery"]["minConfidence"] == 1
    for part in ("results", "totalCount", "facets", "interpretedQuery"):
        assert with_one.get(part) == without.get(part), part
    assert (with_one["nextCursor"] is None) == (without["nextCursor"] is None)


@pytest.mark.parametrize("value", [0, 6, 2.5, "3", None, True, -1])
async def test_an_out_of_range_min_confidence_is_a_400_naming_it(
    api: ApiClient, auth_header: dict[str, str], value: Any
) -> None:
    body = {"query": "clinic", "minConfidence": value}
    response = await api.post("/v2/providers/search", json=body, headers=auth_header)
    assert response.status == 400
    problem = await response.json()
    assert "minConfidence" in [e["field"] for e in problem["errors"]], problem


async def test_a_cursor_page_keeps_the_filter_and_takes_no_other(
    api: ApiClient, auth_header: dict[str, str]
) -> None:
    point, radius = PLACES["portland-me"]
    body = {"location": {"lat": point[0], "lng": point[1]}, "radius": radius}
    first = await search(api, auth_header, **body, minConfidence=3, pageSize=2)
    assert first["nextCursor"]
    again = {"cursor": first["nextCursor"], "minConfidence": 5}
    response = await api.post("/v2/providers/search", json=again, headers=auth_header)
    assert response.status == 400
    problem = await response.json()
    assert "minConfidence" in [e["field"] for e in problem["errors"]], problem


async def test_a_zero_answer_says_what_min_confidence_left_out_and_keeps_it(
    api: ApiClient, auth_header: dict[str, str], stored: list[Stored]
) -> None:
    """Nothing scores 5 inside a small radius of Providence: the answer stays empty (the
    filter is not relaxed), counts the providers there at any score and the nearest that
    scores 5 beyond the radius."""
    point, radius = PROVIDENCE, 2.0
    assert not expected(stored, 5, point, radius).inside
    anyway = expected(stored, 1, point, radius)
    assert anyway.inside and not anyway.edge
    location = {"lat": point[0], "lng": point[1]}
    answer = await search(api, auth_header, location=location, radius=radius, minConfidence=5)
    assert answer["results"] == [] and answer["totalCount"] == 0
    assert answer["interpretedQuery"]["minConfidence"] == 5
    explained = answer["noResults"]
    assert explained["belowMinConfidence"] == len(anyway.inside)
    fives = [min(d) for doc in stored if (d := _distances(doc, 5, point).values())]
    assert explained["reason"] == "outside_radius"
    assert explained["beyondRadius"]["count"] == len(fives)
    assert abs(explained["beyondRadius"]["nearestMiles"] - min(fives)) <= SAME_MILES


async def test_without_a_place_a_zero_answer_is_below_min_confidence(
    api: ApiClient, auth_header: dict[str, str], stored: list[Stored]
) -> None:
    """Words that find only providers scoring less than asked: nothing, and how many."""
    by_key = {doc.key: doc for doc in stored}
    _, every = await every_page(api, auth_header, query="clinic")
    best = {
        _result_key(r): max(map(_score, by_key[_result_key(r)].locations), default=0) for r in every
    }
    least = max(best.values()) + 1
    assert least <= 5, "the words find a provider below the highest score"
    answer = await search(api, auth_header, query="clinic", minConfidence=least)
    assert answer["results"] == [] and answer["totalCount"] == 0
    assert answer["noResults"]["reason"] == "below_min_confidence"
    assert answer["noResults"]["belowMinConfidence"] == len(every)
