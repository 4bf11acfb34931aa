"""The pure query builder: request in, Elasticsearch body out."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from core.network import in_network_clause
from service.search.models import SearchRequest
from service.search.query import build_search
from service.search.question import read_question

TODAY = date(2026, 7, 1)


def _body(**fields: Any) -> dict[str, Any]:
    request = SearchRequest.model_validate_json(json.dumps(fields))
    return build_search(read_question(request, TODAY))


def _find(node: Any, key: str) -> list[Any]:
    if isinstance(node, dict):
        return [v for k, v in node.items() if k == key] + [
            x for v in node.values() for x in _find(v, key)
        ]
    if isinstance(node, list):
        return [x for v in node for x in _find(v, key)]
    return []


def test_radius_is_a_geo_filter_on_the_location_points_without_nested_documents() -> None:
    body = _body(query="smith", location={"lat": 40.7, "lng": -74.0}, radius=10)
    [radius] = [f["geo_distance"] for f in body["query"]["bool"]["filter"] if "geo_distance" in f]
    assert radius == {"distance": "10.0mi", "points": {"lat": 40.7, "lon": -74.0}}
    assert not _find(body, "nested") and not _find(body, "inner_hits")
    assert body["_source"] == ["provider", "locations"]
    assert body["sort"][0] == {"_score": "desc"}
    assert body["track_total_hits"] is True
    assert (body["from"], body["size"]) == (0, 50)


def test_default_radius_is_25_miles_and_location_only_sorts_by_distance() -> None:
    body = _body(location="10013")
    [radius] = [f["geo_distance"] for f in body["query"]["bool"]["filter"] if "geo_distance" in f]
    assert radius["distance"] == "25.0mi"
    assert body["query"]["bool"]["should"] == []  # sorted by distance: nothing to score
    # Lucene's fast distance sort needs exactly this: one point, arc, the nearest location.
    distance = body["sort"][0]["_geo_distance"]
    assert (distance["mode"], distance["distance_type"]) == ("min", "arc")
    assert "nested" not in distance and "unit" not in distance  # metres: the fast path
    assert body["sort"][1] == {"npi": "asc"}


def test_with_text_nearer_providers_score_higher() -> None:
    body = _body(query="smith", location="10013")
    decays = _find(body["query"]["bool"]["should"], "gauss")
    assert [d["points"]["scale"] for d in decays] == ["12.5mi"]  # half the radius
    assert [d["multi_value_mode"] for d in decays] == ["min"]  # the nearest location counts


def test_text_is_matched_word_by_word_with_fuzziness_never_as_syntax() -> None:
    body = _body(query='Johnson "*:*" OR Sinai')
    exact = [m["query"] for m in _find(body["query"]["bool"]["must"], "multi_match")]
    assert exact == ["johnson", "or", "sinai"]
    fuzzy = [m["typoTolerant"] for m in _find(body["query"]["bool"]["must"], "match")]
    assert [f["query"] for f in fuzzy] == exact
    assert all(f["fuzziness"] == "AUTO" for f in fuzzy)
    assert not _find(body, "query_string") and not _find(body, "simple_query_string")


def test_lay_terms_become_taxonomy_filters() -> None:
    body = _body(query="heart doctor", location="10013")
    [codes] = _find(body["query"]["bool"]["filter"], "terms")
    assert "207RC0000X" in codes["taxonomyCodes"]
    assert body["query"]["bool"]["must"] == []
    prefixes = _find(_body(query="obgyn")["query"]["bool"]["filter"], "prefix")
    assert prefixes == [{"taxonomyCodes": "207V"}]


def test_a_specialty_beside_a_name_ranks_instead_of_filtering() -> None:
    body = _body(query="Smith cardiologist")
    assert not _find(body["query"]["bool"]["filter"], "terms")
    assert [m["query"] for m in _find(body["query"]["bool"]["must"], "multi_match")] == ["smith"]
    assert _find(body["query"]["bool"]["should"], "terms")


def test_filters_and_paging() -> None:
    body = _body(
        query="x",
        gender="F",
        entityType="individual",
        pcpEligible=True,
        language="Spanish",
        taxonomyCode="207Q00000X",
        bidId="h1234-001",
        contractYear=2026,
        pageSize=20,
        offset=40,
        facets=False,
    )
    terms = _find(body["query"]["bool"]["filter"], "term")
    assert {"gender": "F"} in terms and {"entityType": "individual"} in terms
    assert {"pcpEligible": True} in terms and {"taxonomyCodes": "207Q00000X"} in terms
    assert in_network_clause("2026:H1234_001_000", TODAY) in body["query"]["bool"]["filter"]
    assert (body["from"], body["size"]) == (40, 20)
    assert "aggs" not in body


def test_search_after_replaces_from() -> None:
    request = SearchRequest(query="x")
    body = build_search(read_question(request, TODAY), search_after=[1.5, "1003000100"])
    assert body["search_after"] == [1.5, "1003000100"] and "from" not in body


def test_specialty_searches_rank_primary_then_practising_above_closeness() -> None:
    body = _body(query="ENT", location="10013")
    should = body["query"]["bool"]["should"]
    primary, practising = (c["constant_score"] for c in should if "constant_score" in c)
    assert _find(primary["filter"], "prefix") == [{"primaryTaxonomyCodes": "207Y"}]
    assert _find(practising["filter"], "must_not") == [[{"term": {"taxonomyCodes": "390200000X"}}]]
    closeness = next(c["function_score"]["boost"] for c in should if "function_score" in c)
    assert practising["boost"] > closeness and primary["boost"] > practising["boost"] + closeness


def test_a_taxonomy_code_filter_ranks_primary_first_too() -> None:
    body = _body(query="smith", taxonomyCode="207Q00000X")
    assert {"terms": {"primaryTaxonomyCodes": ["207Q00000X"]}} in _find(
        body["query"]["bool"]["should"], "filter"
    )[0]["bool"]["should"]


def test_the_whole_name_scores_exactly_and_as_a_phrase() -> None:
    body = _body(query="Dr. Holland Obstetrics & Gynecology")
    should = body["query"]["bool"]["should"]
    assert {"exactNames": {"value": "holland obstetrics gynecology", "boost": 20.0}} in [
        c["term"] for c in should if "term" in c
    ]
    phrases = [c["match_phrase"] for c in should if "match_phrase" in c]
    assert {p[f]["query"] for p in phrases for f in p} == {"holland obstetrics gynecology"}
    required = [m["query"] for m in _find(body["query"]["bool"]["must"], "multi_match")]
    assert required == ["holland"]


def test_language_words_filter_by_language() -> None:
    body = _body(query="habla español", location="10013")
    assert {"terms": {"languages": ["Spanish"]}} in body["query"]["bool"]["filter"]
    assert body["query"]["bool"]["must"] == []


def test_no_aggregations_unless_facets_are_asked_for() -> None:
    assert "aggs" not in _body(location="10013", radius=7)


def test_distance_bands_stop_at_the_radius_which_is_inclusive() -> None:
    body = _body(location="10013", radius=7, facets=True)
    ranges = {
        r["key"]: (r["from"], r["to"]) for r in body["aggs"]["distance"]["geo_distance"]["ranges"]
    }
    assert set(ranges) == {"0-5", "5-10"}  # nothing beyond the radius can be counted
    assert ranges["0-5"] == (0, 5)
    low, high = ranges["5-10"]
    assert low == 5 and 7 < high < 7.001
