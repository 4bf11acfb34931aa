"""Reading a FHIR search's query string (pure)."""

from __future__ import annotations

import pytest

from service.errors import InvalidInput
from service.fhir.models import DEFAULT_COUNT, MAX_COUNT
from service.fhir.search.query_string import read_search


def test_parameters_modifiers_and_alternatives_are_read() -> None:
    search = read_search(
        "Practitioner", [("family:exact", "Smith"), ("given", "ann,jo"), ("_count", "5")]
    )
    assert [(c.name, c.modifier, c.values) for c in search.clauses] == [
        ("family", "exact", ("Smith",)),
        ("given", None, ("ann", "jo")),
    ]
    assert search.count == 5
    assert search.applied == (("family:exact", "Smith"), ("given", "ann,jo"), ("_count", "5"))


def test_an_escaped_comma_is_part_of_the_value() -> None:
    search = read_search("Organization", [("name", r"Smith\, Jones")])
    assert search.clauses[0].values == ("Smith, Jones",)


def test_count_defaults_and_is_capped() -> None:
    assert read_search("Location", []).count == DEFAULT_COUNT
    assert read_search("Location", [("_count", "5000")]).count == MAX_COUNT
    with pytest.raises(InvalidInput):
        read_search("Location", [("_count", "-1")])


def test_date_prefixes_are_split_from_the_dates() -> None:
    search = read_search("Practitioner", [("_lastUpdated", "ge2020-01-01,2021")])
    clause = search.clauses[0]
    assert clause.prefixes == ("ge", "eq")
    assert clause.values == ("2020-01-01", "2021")


@pytest.mark.parametrize("value", ["yesterday", "2020-13-01", "ge", "2020-01-01T25:00"])
def test_a_malformed_date_is_refused_even_when_lenient(value: str) -> None:
    with pytest.raises(InvalidInput, match="_lastUpdated"):
        read_search("Practitioner", [("_lastUpdated", value)])


def test_near_takes_miles_or_kilometres() -> None:
    near = read_search("Location", [("near", "41.76|-72.68|16.09344|km")]).near
    assert near is not None
    assert (near.lat, near.lng) == (41.76, -72.68)
    assert near.miles == pytest.approx(10.0, rel=1e-4)
    default = read_search("Location", [("near", "41.76|-72.68")]).near
    assert default is not None and default.miles == 25.0


@pytest.mark.parametrize(
    "value", ["41.76", "91|0|1|mi", "41|-72|10|furlongs", "41|-72|0|mi", "41|-72|500|mi", "a|b"]
)
def test_a_malformed_near_is_refused(value: str) -> None:
    with pytest.raises(InvalidInput, match="near"):
        read_search("Location", [("near", value)])


def test_lenient_handling_leaves_unknown_parameters_out_and_says_which() -> None:
    search = read_search(
        "Practitioner",
        [("family", "x"), ("birthdate", "1970"), ("name:missing", "true"), ("_include", "X:y")],
    )
    assert [c.name for c in search.clauses] == ["family"]
    assert search.ignored == ("birthdate", "name:missing", "_include=X:y")
    assert search.applied == (("family", "x"),)


@pytest.mark.parametrize(
    "pair", [("birthdate", "1970"), ("family:text", "x"), ("_include", "Practitioner:x")]
)
def test_strict_handling_refuses_what_is_not_supported(pair: tuple[str, str]) -> None:
    with pytest.raises(InvalidInput) as refused:
        read_search("Practitioner", [pair], strict=True)
    assert refused.value.code == "unsupported_search_parameter"


def test_includes_are_checked_against_the_type() -> None:
    search = read_search(
        "PractitionerRole",
        [("_include", "PractitionerRole:practitioner"), ("_include", "PractitionerRole:location")],
    )
    assert search.includes == ("PractitionerRole:practitioner", "PractitionerRole:location")
    revinclude = read_search("Location", [("_revinclude", "PractitionerRole:location")])
    assert revinclude.revincludes == ("PractitionerRole:location",)


def test_text_combines_with_near_and_count_only() -> None:
    search = read_search(
        "PractitionerRole", [("_text", "kardiologist"), ("near", "41.76|-72.68|10|mi")]
    )
    assert search.text == "kardiologist" and search.near is not None
    with pytest.raises(InvalidInput, match="_text"):
        read_search("PractitionerRole", [("_text", "heart"), ("specialty", "207RC0000X")])


def test_only_json_is_answered() -> None:
    assert read_search("Location", [("_format", "application/fhir+json")]).clauses == ()
    with pytest.raises(InvalidInput, match="_format"):
        read_search("Location", [("_format", "xml")])


@pytest.mark.parametrize("value", ["2020-02-30", "2021-02-29T10:00:00Z"])
def test_a_day_that_does_not_exist_is_refused(value: str) -> None:
    with pytest.raises(InvalidInput, match="_lastUpdated"):
        read_search("Practitioner", [("_lastUpdated", value)])
