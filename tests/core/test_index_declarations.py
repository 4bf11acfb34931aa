"""Each index is declared once: its mapping is checked against its documents' types
(core.index_fields), and every field a query names exists in the mapping it is sent to."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any, NotRequired, TypedDict

import pytest

from core.documents import Json, SearchDoc
from core.index_contract import MAPPINGS, SEARCH_FIELDS, declaration_problems
from core.index_fields import FieldNames, undeclared
from service.errors import InvalidInput
from service.fhir.models import PUBLISHED_TYPES, Search
from service.fhir.parameters import PARAMETERS
from service.fhir.published import published_query
from service.fhir.query import build_query, members_query
from service.fhir.query_string import read_search
from service.search import rescue
from service.search.facets import facet_aggregations
from service.search.models import SearchRequest
from service.search.nearest import ring_bodies
from service.search.query import build_search
from service.search.question import read_question

TODAY = date(2026, 7, 1)


def test_every_index_declares_what_its_documents_hold() -> None:
    assert declaration_problems() == []


def test_a_stored_field_without_a_mapping_is_a_defect() -> None:
    class Grown(SearchDoc):
        shoeSize: NotRequired[int]

    copies = ("languageText", "typoTolerant")
    problems = undeclared(MAPPINGS["search"], FieldNames("search", Grown, index_only=copies))
    assert problems == ["shoeSize: stored but neither mapped nor declared stored-only"]


def test_a_mapped_field_no_document_has_is_a_defect() -> None:
    class Small(TypedDict):
        npi: str

    mapping = {"properties": {"npi": {"type": "keyword"}, "gone": {"type": "keyword"}}}
    assert undeclared(mapping, FieldNames("x", Small)) == ["gone: mapped, but no document has it"]


def test_a_misspelt_field_name_fails_where_it_is_used() -> None:
    with pytest.raises(AttributeError, match="no field 'fulName'"):
        _ = SEARCH_FIELDS.fulName


# ---- every field a query names is mapped ----

_CLAUSES = ("term", "terms", "prefix", "wildcard", "match", "match_phrase", "range")
_CLAUSE_OPTIONS = {"boost", "_name"}
_SORT_SPECIALS = {"_score", "_doc", "_shard_doc", "_geo_distance"}
_GEO_OPTIONS = {"distance", "distance_type", "order", "mode", "unit", "origin", "scale"}
_GEO_OPTIONS |= {"field", "ranges", "multi_value_mode", "keyed"}


def mapped_fields(mapping: Json, prefix: str = "") -> set[str]:
    """Every path a query may name: properties, their sub-fields and nested properties."""
    found: set[str] = set()
    for name, spec in mapping.get("properties", {}).items():
        path = prefix + name
        found.add(path)
        found |= {f"{path}.{sub}" for sub in spec.get("fields", {})}
        found |= mapped_fields(spec, path + ".")
    return found


def named_fields(node: Any) -> Iterator[str]:
    """The fields an Elasticsearch body names, wherever they are."""
    if isinstance(node, list):
        for item in node:
            yield from named_fields(item)
        return
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        if key in _CLAUSES and isinstance(value, dict) and "field" not in value:
            yield from (k for k in value if k not in _CLAUSE_OPTIONS)
        elif key in ("geo_distance", "_geo_distance", "gauss") and isinstance(value, dict):
            yield from (k for k in value if k not in _GEO_OPTIONS)
        elif key in ("field", "path") and isinstance(value, str):
            yield value
        elif key == "fields" and isinstance(value, list):
            yield from (str(f).split("^")[0] for f in value)
        elif key == "_source" and isinstance(value, list):
            yield from value
        elif key == "sort" and isinstance(value, list):
            entries = (k for entry in value if isinstance(entry, dict) for k in entry)
            yield from (k for k in entries if k not in _SORT_SPECIALS)
        yield from named_fields(value)


V2_REQUESTS = [
    {"query": "cardiology"},
    {"query": "Dr. Maria Garcia", "location": "10013", "radius": 10},
    {"query": "knee pain", "location": {"lat": 40.7, "lng": -74.0}, "facets": True},
    {"location": {"lat": 40.7, "lng": -74.0}, "radius": 50, "sort": "distance"},
    {"query": "spanish speaking pediatrician", "gender": "F", "entityType": "individual"},
    {"query": "xqzv wplk", "location": "10013", "language": "Spanish", "pcpEligible": True},
    {"query": "clinic", "taxonomyCode": "207R00000X", "specialty": "internal medicine"},
    {"query": "family", "bidId": "H1234_001_000", "contractYear": 2026},
]


def v2_bodies() -> Iterator[Json]:
    for fields in V2_REQUESTS:
        question = read_question(SearchRequest.model_validate(fields), TODAY)
        yield build_search(question)
        yield from rescue.word_count_bodies(question)
        yield from rescue.explain_bodies(question)
        yield from ring_bodies(question) or ()
        if question.place is not None:
            yield {"aggs": facet_aggregations(question.place, 10.0)}


_VALUES = {
    "token": "http://example.org/x|abc",
    "string": "main",
    "reference": "Organization/1234567893",
    "date": "gt2024-01-01",
    "number": "1",
    "uri": "http://example.org",
}


def fhir_searches(published: bool) -> Iterator[Search]:
    """Searches of the types built from providers (the search index), or of those payers
    publish (the plans index)."""
    for kind, parameters in PARAMETERS.items():
        if (kind in PUBLISHED_TYPES) != published:
            continue
        for name, param in parameters.items():
            value = "40.7|-74.0|10|mi" if name == "near" else _VALUES.get(param.type, "x")
            try:
                yield read_search(kind, [(name, value)], strict=True)
            except InvalidInput:
                continue  # a parameter this value does not fit; its field is read elsewhere


def test_every_field_a_search_index_query_names_is_mapped() -> None:
    mapped = mapped_fields(MAPPINGS["search"])
    bodies = [*v2_bodies()]
    searches = list(fhir_searches(published=False))
    assert len(searches) > 50  # most parameters of the table were built
    bodies += [build_query(search, 10, None, TODAY) for search in searches]
    bodies.append(members_query(["2026:H1234_001_000"], TODAY, 10))
    named = {field for body in bodies for field in named_fields(body)}
    assert named and named <= mapped, sorted(named - mapped)


def test_every_field_a_plans_index_query_names_is_mapped() -> None:
    mapped = mapped_fields(MAPPINGS["plans"])
    searches = list(fhir_searches(published=True))
    assert len(searches) > 5
    named = {f for s in searches for f in named_fields(published_query(s, 10, None))}
    assert named and named <= mapped, sorted(named - mapped)
