"""Searches of what payers' directories publish (HealthcareService, Endpoint): a search -> the
plans index's query body (pure). Their documents hold the resource as served and ``terms``, what
each parameter matches (core.fhir_terms.term); a hit -> its resource is
service.fhir.render.published."""

from __future__ import annotations

from typing import Any

from core.documents import Json
from core.fhir_terms import term
from core.index_contract import PLAN_FIELDS
from core.text import normalize
from service.fhir.models import TERMS, Clause, Search
from service.fhir.search.date_search import instant_query
from service.fhir.search.parameters import TARGETS
from service.fhir.search.query import NOTHING, reference_id

PUBLISHED_SOURCE = [PLAN_FIELDS.resource, PLAN_FIELDS.changedAt]


def _value(clause: Clause, index: int) -> Json:
    value = clause.values[index]
    if clause.param.type == "date":
        return instant_query(PLAN_FIELDS.changedAt, clause.prefixes[index], value)
    if clause.param.type == "reference":
        found = reference_id(clause, value)
        kind = TARGETS[clause.name.split(".")[-1]]
        return {"term": {TERMS: term(clause.name, f"{kind}/{found}")}} if found else NOTHING
    if clause.param.type == "string":
        wanted = term(clause.name, normalize(value))
        if clause.modifier == "exact":
            return {"term": {TERMS: wanted}}
        if clause.modifier == "contains":
            contained = term(clause.name, f"*{normalize(value)}*")
            return {"wildcard": {TERMS: {"value": contained}}}
        return {"prefix": {TERMS: wanted}}
    return {"term": {TERMS: term(clause.name, value)}}


def _alternatives(clause: Clause) -> list[Json]:
    """What one clause matches: each value's terms; for a chain resolved across stores, a
    reference to one of the targets it matched too (its own terms are what the payer wrote of
    a target the directory does not serve: an organisation's name)."""
    alternatives = [_value(clause, i) for i in range(len(clause.values))]
    if clause.resolved:
        head = clause.name.partition(".")[0]
        alternatives.append({"terms": {TERMS: [term(head, ref) for ref in clause.resolved]}})
    return alternatives


def published_query(search: Search, size: int, after: list[Any] | None) -> Json:
    filters: list[Json] = [{"term": {PLAN_FIELDS.resourceType: search.kind}}]
    for clause in search.clauses:
        alternatives = _alternatives(clause)
        filters.append(
            alternatives[0]
            if len(alternatives) == 1
            else {"bool": {"should": alternatives, "minimum_should_match": 1}}
        )
    if search.near is not None or search.text is not None:
        filters.append(NOTHING)  # they have no place and are not in /v2
    body: Json = {
        "query": {"bool": {"filter": filters}},
        "sort": [{PLAN_FIELDS.id: "asc"}],
        "size": size,
        "track_total_hits": True,
        "_source": PUBLISHED_SOURCE,
    }
    if after is not None:
        body["search_after"] = after
    return body


def organization_query(kinds: list[str], organizations: list[str], size: int) -> Json:
    """The published resources of these types that name one of these organisations."""
    return {
        "query": {
            "bool": {
                "filter": [
                    {"terms": {PLAN_FIELDS.resourceType: kinds}},
                    {"terms": {TERMS: [term("organization", o) for o in organizations]}},
                ]
            }
        },
        "sort": [{PLAN_FIELDS.id: "asc"}],
        "size": size,
        "_source": PUBLISHED_SOURCE,
    }
