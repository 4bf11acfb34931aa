"""Each index is declared once, by its documents' types (core.index_fields): its mapping is made
from them, and every field a query names is indexed by the index it is sent to (a ``dynamic:
false`` index answers a query on a field it does not map with nothing, never an error; a stored
only field is never in a query), every field it reads back among the fields the index declares
it stores: /v2 search and
/fhir (the search and plans indices), coverage and the plan search (multi-searches of the plans,
lookup and coverage indices), the Bulk Data export (its files' pages over both
indices, its removals over the removals index) and the removal records updates write."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, date, datetime
from typing import Annotated, Any, TypedDict

import pytest

from core.changes import CHANGED_AT, provider_removals
from core.documents import Json, SearchCopies, SearchDoc
from core.index_contract import (
    DECLARED,
    INDEX_KINDS,
    MAPPINGS,
    NETWORK_FIELDS,
    PLAN_FIELDS,
    SEARCH_FIELDS,
    STAR_FIELDS,
    IndexKind,
    IndexNames,
)
from core.index_fields import KEYWORD, TEXT, FieldNames, Indexed
from service.coverage.models import CoverageRequest
from service.coverage.query import coverage_searches
from service.errors import InvalidInput
from service.fhir.export.job import (
    alias_of,
    page_body,
    removals_page_body,
    removals_query,
    type_query,
)
from service.fhir.export.models import ExportJob
from service.fhir.models import PUBLISHED_TYPES, RESOURCE_TYPES, Search
from service.fhir.search.parameters import PARAMETERS
from service.fhir.search.published_query import published_query
from service.fhir.search.query import build_query, members_query
from service.fhir.search.query_string import read_search
from service.fhir.sources.store import EVERY_PLAN
from service.plans.models import PlanSearchRequest
from service.plans.query import plan_searches
from service.search import rescue
from service.search.facets import facet_aggregations
from service.search.models import SearchRequest
from service.search.nearest import ring_body
from service.search.query import build_search
from service.search.question import read_question

TODAY = date(2026, 7, 1)


def test_a_field_without_an_index_annotation_is_stored_only() -> None:
    plans = MAPPINGS["plans"]["properties"]
    assert "planName" in PLAN_FIELDS and "planName" not in plans  # answered, never searched
    assert "planName" in PLAN_FIELDS.stored_only and "zips" not in PLAN_FIELDS.stored_only
    assert "resource" in PLAN_FIELDS.stored_only  # mapped, but never parsed (UNPARSED)
    assert plans["resource"] == {"type": "object", "enabled": False}
    assert MAPPINGS["providers"] == {"enabled": False}  # read by id only


def test_object_fields_are_declared_by_their_own_types() -> None:
    networks = MAPPINGS["search"]["properties"]["networks"]
    assert networks["type"] == "nested" and set(networks["properties"]) == {"key", "period"}
    assert MAPPINGS["plans"]["properties"]["starRating"] == {
        "properties": {"overall": {"type": "float"}}
    }
    assert (NETWORK_FIELDS.key, NETWORK_FIELDS.period) == ("networks.key", "networks.period")
    assert STAR_FIELDS.overall == "starRating.overall"
    with pytest.raises(AttributeError, match="no object field 'npi'"):
        SEARCH_FIELDS.inside("npi")


def test_index_only_fields_are_what_copy_to_fills() -> None:
    search = MAPPINGS["search"]["properties"]
    assert search["languages"]["copy_to"] == SEARCH_FIELDS.languageText
    assert search["names"]["copy_to"] == search["organizations"]["copy_to"] == "typoTolerant"
    assert SEARCH_FIELDS.all - SEARCH_FIELDS.stored == {"languageText", "typoTolerant"}

    class Unfilled(SearchCopies):
        soundsLike: Annotated[str, TEXT]

    with pytest.raises(TypeError, match="copy_to targets and index-only fields differ"):
        FieldNames("search", SearchDoc, index_only=Unfilled)


def test_a_field_two_documents_index_differently_is_a_defect() -> None:
    class One(TypedDict):
        code: Annotated[str, KEYWORD]

    class Other(TypedDict):
        code: Annotated[str, TEXT]

    class Unindexed(TypedDict):
        code: str

    for second in (Other, Unindexed):
        with pytest.raises(TypeError, match="code: declared differently"):
            FieldNames("x", One, second)
    assert FieldNames("x", One, One).mapping()["properties"] == {"code": {"type": "keyword"}}


def test_an_object_field_needs_a_type_of_its_own() -> None:
    class Loose(TypedDict):
        payload: Annotated[dict[str, str], Indexed.object()]

    with pytest.raises(TypeError, match="payload: an object field needs a TypedDict"):
        FieldNames("x", Loose)


def test_the_literal_field_constants_are_the_declared_names() -> None:
    assert CHANGED_AT == SEARCH_FIELDS.changedAt == PLAN_FIELDS.changedAt


def test_a_misspelt_field_name_fails_where_it_is_used() -> None:
    with pytest.raises(AttributeError, match="no field 'fulName'"):
        _ = SEARCH_FIELDS.fulName


# ---- every field a query names is mapped ----

_CLAUSES = ("term", "terms", "prefix", "wildcard", "match", "match_phrase", "range")
_CLAUSE_OPTIONS = {"boost", "_name"}
_SORT_SPECIALS = {"_score", "_doc", "_shard_doc", "_geo_distance"}
_GEO_OPTIONS = {"distance", "distance_type", "order", "mode", "unit", "origin", "scale"}
_GEO_OPTIONS |= {"field", "ranges", "multi_value_mode", "keyed"}


def mapped_fields(mapping: Json, prefix: str = "", *, parsed_only: bool = True) -> set[str]:
    """Every path a query may name: properties, their sub-fields and nested properties; not
    those kept whole, never parsed (``enabled: false``), unless ``parsed_only`` is False."""
    found: set[str] = set()
    for name, spec in mapping.get("properties", {}).items():
        if parsed_only and spec.get("enabled", True) is False:
            continue
        path = prefix + name
        found.add(path)
        found |= {f"{path}.{sub}" for sub in spec.get("fields", {})}
        found |= mapped_fields(spec, path + ".", parsed_only=parsed_only)
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
        elif key == "_source":
            continue  # what is read back, not searched: source_fields
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
    {"query": "heart", "location": "10013", "minConfidence": 4, "facets": True},
    {"location": {"lat": 40.7, "lng": -74.0}, "radius": 30, "minConfidence": 2},
    {"query": "xqzv clinic", "minConfidence": 5},
]


def v2_bodies() -> Iterator[Json]:
    for fields in V2_REQUESTS:
        question = read_question(SearchRequest.model_validate(fields), TODAY)
        yield build_search(question)
        yield from rescue.word_count_bodies(question)
        yield from rescue.explain_bodies(question)
        ring = ring_body(question)
        if ring is not None:
            yield ring
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


def source_fields(node: Any) -> Iterator[str]:
    """The fields a body reads back (``_source``: a list, or includes and excludes)."""
    if isinstance(node, list):
        for item in node:
            yield from source_fields(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key == "_source" and isinstance(value, list | str):
                yield from [value] if isinstance(value, str) else value
            elif key == "_source" and isinstance(value, dict):
                for part in ("includes", "excludes"):
                    yield from value.get(part, [])
            else:
                yield from source_fields(value)


def undeclared_in(bodies: Iterable[tuple[IndexKind, Json]]) -> tuple[set[str], list[str]]:
    """Every field the bodies name, and those their index does not declare: a query's field
    not indexed (stored only), a field read back that no document of the index holds."""
    named: set[str] = set()
    problems: list[str] = []
    for kind, body in bodies:
        indexed = mapped_fields(MAPPINGS[kind])
        stored = mapped_fields(MAPPINGS[kind], parsed_only=False) | DECLARED[kind].stored
        searched, read = set(named_fields(body)), set(source_fields(body))
        named |= {f"{kind}:{field}" for field in searched | read}
        problems += [f"{kind}: {f} is queried, not indexed" for f in searched - indexed]
        problems += [f"{kind}: {f} is read, not stored" for f in read - stored]
    return named, sorted(set(problems))


def test_every_field_a_search_index_query_names_is_mapped() -> None:
    bodies = [*v2_bodies()]
    searches = list(fhir_searches(published=False))
    assert len(searches) > 50  # most parameters of the table were built
    bodies += [build_query(search, 10, None, TODAY) for search in searches]
    bodies.append(members_query(["2026:H1234_001_000"], TODAY, 10))
    named, problems = undeclared_in(("search", body) for body in bodies)
    assert named and problems == []


def test_every_field_a_plans_index_query_names_is_mapped() -> None:
    searches = list(fhir_searches(published=True))
    assert len(searches) > 5
    bodies: list[tuple[IndexKind, Json]] = [
        ("plans", published_query(s, 10, None)) for s in searches
    ]
    named, problems = undeclared_in([*bodies, ("plans", EVERY_PLAN)])
    assert named and problems == []


def test_a_field_its_index_does_not_declare_is_named() -> None:
    bodies: list[tuple[IndexKind, Json]] = [
        ("plans", {"query": {"term": {"planName": "x"}}, "_source": ["planName", "shoeSize"]}),
        ("plans", {"query": {"term": {"resource": "x"}}, "_source": ["resource"]}),
        ("providers", {"query": {"term": {"npi": "1234567893"}}, "_source": ["provider"]}),
    ]
    assert undeclared_in(bodies)[1] == [
        "plans: planName is queried, not indexed",  # kept in the source only
        "plans: resource is queried, not indexed",  # mapped, kept whole, never parsed
        "plans: shoeSize is read, not stored",
        "providers: npi is queried, not indexed",  # the lookup index is read by id only
    ]


# ---- coverage and the plan search: multi-searches of several indices ----

NAMES = IndexNames("declared")
KINDS: dict[str, IndexKind] = {NAMES.alias(kind): kind for kind in INDEX_KINDS}
HEADER = {"allow_partial_search_results": False}
NPIS = [{"npi": "1234567893"}, {"npi": "1245319599", "locationIds": ["x"]}]


def multi_search(lines: list[Json]) -> list[tuple[IndexKind, Json]]:
    """Each search of a multi-search body with the index kind its header names."""
    assert len(lines) % 2 == 0 and all(
        h["allow_partial_search_results"] is False for h in lines[::2]
    )
    return [
        (KINDS[header["index"]], body) for header, body in zip(lines[::2], lines[1::2], strict=True)
    ]


COVERAGE_REQUESTS: list[Json] = [
    {"contractYear": 2026, "bidIds": ["H1234_001_000"], "npis": NPIS},
    {"contractYear": 2026, "payerPlanIds": ["payer-plan-1"], "npis": NPIS, "view": "compact"},
]
PLAN_REQUESTS: list[Json] = [
    {"zip": "29201"},
    {"zip": "29201", "npis": NPIS, "snp": "only", "maxMonthlyPremium": 50, "minStars": 3.5},
    {"countyFips": "45079", "planTypes": ["H", "S"], "snp": "include", "contractYear": 2026},
]


def test_every_field_the_coverage_and_plan_searches_name_is_declared() -> None:
    bodies: list[tuple[IndexKind, Json]] = []
    for fields in COVERAGE_REQUESTS:
        request = CoverageRequest.model_validate(fields)
        bodies += multi_search(coverage_searches(request, NAMES, HEADER))
    for fields in PLAN_REQUESTS:
        plans = PlanSearchRequest.model_validate(fields)
        bodies += multi_search(plan_searches(plans, 2026, NAMES, HEADER))
    named, problems = undeclared_in(bodies)
    assert {kind for kind, _ in bodies} == {"plans", "providers", "coverage"}
    assert named and problems == []


# ---- the Bulk Data export and the removals ----

SINCE = datetime(2026, 1, 1, tzinfo=UTC)


def export_job(since: datetime | None) -> ExportJob:
    """A recorded job as the kick-off writes it (service.fhir.export.export), two files per type."""
    return ExportJob(
        request="http://localhost/fhir/$export",
        types=RESOURCE_TYPES,
        since=since,
        day=TODAY,
        transaction_time=SINCE,
        expires=SINCE,
        pits={"search": "pit-s", "plans": "pit-p", "deleted": "pit-r"},
        files=dict.fromkeys(RESOURCE_TYPES, 2),
    )


def test_every_field_the_export_and_the_removals_name_is_declared() -> None:
    bodies: list[tuple[IndexKind, Json]] = []
    hit_types = [kind for kind in RESOURCE_TYPES if kind != "InsurancePlan"]  # built from plans
    for since in (None, SINCE):
        job = export_job(since)
        for kind in hit_types:
            bodies.append((alias_of(kind), {"query": type_query(kind, since, TODAY.isoformat())}))
            bodies.append((alias_of(kind), page_body(job, kind, 1, ["after"], 100)))
    bodies.append(("removals", {"query": removals_query(tuple(hit_types), SINCE)}))
    bodies.append(("removals", removals_page_body(export_job(SINCE), None, 100)))
    bodies.append(("plans", EVERY_PLAN))  # the file of the resources built from plans
    named, problems = undeclared_in(bodies)
    assert {kind for kind, _ in bodies} == {"search", "plans", "removals"}
    assert named and problems == []


def test_a_removal_record_holds_only_what_the_removals_index_maps() -> None:
    doc = {
        "npi": "1234567893",
        "provider": {"entityType": "individual"},
        "networks": [{"key": "2026:H1234_001_000"}],
        "locations": [{"id": "1234567893-a"}],
    }
    records = provider_removals(doc, "2026-01-01T00:00:00Z")
    assert {doc_id.split("/")[0] for doc_id, _ in records} == {
        "Practitioner",
        "PractitionerRole",
        "Location",
    }
    mapped = mapped_fields(MAPPINGS["removals"])
    assert {field for _, record in records for field in record} == mapped
