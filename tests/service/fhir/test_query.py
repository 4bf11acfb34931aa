"""A FHIR search -> the search index's body, and a location against a Location search (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from core.changes import CHANGED_AT
from core.documents import Location
from service.errors import InvalidInput
from service.fhir.search.location_match import location_matches
from service.fhir.search.paging import decode_cursor, encode_cursor
from service.fhir.search.query import build_query
from service.fhir.search.query_string import read_search


def _filters(kind: Any, pairs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    body = build_query(read_search(kind, pairs), 10, None)
    filters: list[dict[str, Any]] = body["query"]["bool"]["filter"]
    return filters


def test_strings_are_normalised_prefixes_and_types_filter_the_entity() -> None:
    assert _filters("Practitioner", [("family", "Peña")]) == [
        {"prefix": {"familyNames": "pena"}},
        {"term": {"entityType": "individual"}},
    ]
    # A name's parts are indexed once: the whole names (/v2's exact names), family and given
    # names apart, and what none of those holds (prefix, suffix, other names).
    name_fields = ("nameParts", "exactNames", "familyNames", "givenNames")
    assert _filters("Organization", [("name:exact", "St. Mary's")])[0] == {
        "bool": {"should": [{"term": {field: "st marys"}} for field in name_fields]}
    }


def test_token_systems_must_be_the_fields_own() -> None:
    nucc = _filters("PractitionerRole", [("specialty", "http://nucc.org/provider-taxonomy|207R")])
    assert nucc[0] == {"term": {"taxonomyCodes": "207R"}}
    other = _filters("PractitionerRole", [("specialty", "http://snomed.info/sct|207R")])
    assert other[0] == {"bool": {"must_not": {"match_all": {}}}}


def test_references_take_their_type_or_match_nothing() -> None:
    # A provider's key is its search document's id.
    assert _filters("PractitionerRole", [("practitioner", "Practitioner/1234567893")])[0] == {
        "ids": {"values": ["1234567893"]}
    }
    assert _filters("PractitionerRole", [("practitioner", "Organization/1234567893")])[0] == {
        "bool": {"must_not": {"match_all": {}}}
    }


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2020", {"gte": "2020-01-01T00:00:00Z", "lt": "2021-01-01T00:00:00Z"}),
        ("2020-12", {"gte": "2020-12-01T00:00:00Z", "lt": "2021-01-01T00:00:00Z"}),
        ("ge2020-02-28", {"gte": "2020-02-28T00:00:00Z"}),
        ("gt2020-02-28", {"gte": "2020-02-29T00:00:00Z"}),
        ("le2020-02-28", {"lt": "2020-02-29T00:00:00Z"}),
        ("lt2020-02-28T10:00:00Z", {"lt": "2020-02-28T10:00:00Z"}),
        ("gt2020-02-28T10:00:00Z", {"gte": "2020-02-28T10:00:01Z"}),  # after that second
        ("eq2020-02-28T10:00Z", {"gte": "2020-02-28T10:00:00Z", "lt": "2020-02-28T10:01:00Z"}),
        # stored instants are whole seconds: after 10:00:00.5 is from 10:00:01
        ("gt2020-02-28T10:00:00.5Z", {"gte": "2020-02-28T10:00:01Z"}),
        ("ge2020-02-28T10:00:00.5Z", {"gte": "2020-02-28T10:00:01Z"}),
        ("ge2024-01-10T20:00:00-05:00", {"gte": "2024-01-11T01:00:00Z"}),
    ],
)
def test_dates_are_ranges_of_their_precision_and_instants_points(
    value: str, expected: dict[str, str]
) -> None:
    assert _filters("Practitioner", [("_lastUpdated", value)])[0] == {
        "range": {CHANGED_AT: {**expected, "format": "strict_date_time_no_millis"}}
    }


def test_near_filters_and_sorts_by_distance() -> None:
    body = build_query(read_search("Location", [("near", "41.7|-72.6|10|mi")]), 5, ["x"])
    assert {"geo_distance": {"distance": "10.0mi", "points": {"lat": 41.7, "lon": -72.6}}} in (
        body["query"]["bool"]["filter"]
    )
    assert list(body["sort"][0]) == ["_geo_distance"]
    assert body["search_after"] == ["x"]
    assert body["track_total_hits"] is False  # a Location search counts locations, not hits


def test_cursors_round_trip_and_refuse_forgeries() -> None:
    assert decode_cursor(encode_cursor([12.5, "123"], 3)) == ([12.5, "123"], 3, None)
    assert decode_cursor(encode_cursor(None, 40, "plans")) == (None, 40, "plans")
    for forged in ("not-a-cursor", "eyJhZnRlciI6MX0", "W10"):  # garbage, {"after":1}, []
        with pytest.raises(InvalidInput):
            decode_cursor(forged)


def _place(city: str, zip_code: str, lat: float | None = None) -> Location:
    address = {
        "line1": "1 Main St", "line2": None, "city": city, "state": "CT", "zip": zip_code,
        "county": None, "lat": lat, "lng": -72.68 if lat is not None else None,
    }  # fmt: skip
    return {"id": f"{city}-{zip_code}", "address": address}  # type: ignore[typeddict-item]


def test_a_location_search_keeps_only_the_locations_that_match() -> None:
    search = read_search("Location", [("address-city", "hart"), ("address-postalcode", "06105")])
    assert location_matches(search, _place("Hartford", "061051208"))
    assert not location_matches(search, _place("Hartford", "06106"))
    assert not location_matches(search, _place("New Haven", "06105"))
    near = read_search("Location", [("near", "41.76|-72.68|5|mi")])
    assert location_matches(near, _place("Hartford", "06105", lat=41.77))
    assert not location_matches(near, _place("Hartford", "06105", lat=42.5))
    assert not location_matches(near, _place("Hartford", "06105"))  # not placed


def test_an_element_the_resources_never_have_matches_nothing() -> None:
    nothing: dict[str, Any] = {"bool": {"must_not": {"match_all": {}}}}
    for kind, pair in (
        ("PractitionerRole", ("organization", "Organization/1234567893")),
        ("PractitionerRole", ("service.service-category", "outpat")),
        ("Location", ("type", "HOSP")),
        ("OrganizationAffiliation", ("primary-organization.name", "acme")),
    ):
        assert _filters(kind, [pair])[0] == nothing, pair


def test_a_provider_organisation_is_of_type_prov() -> None:
    assert _filters("Location", [("organization.type", "prvgrp")])[0] == {"match_all": {}}
    assert _filters("Location", [("organization.type", "payer")])[0] == {
        "bool": {"must_not": {"match_all": {}}}
    }
