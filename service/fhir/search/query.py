"""``Search`` -> the search index's query body (pure); the check of one of a hit's locations
against a Location search is service.fhir.search.location_match."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from core.documents import Json
from core.index_contract import SEARCH_FIELDS as F
from core.network import in_network_clause, role_provider_key
from core.plan_net_codes import (
    NPI_SYSTEM,
    NUCC_SYSTEM,
    ORG_TYPE_SYSTEM,
    PROVIDER_KEY_SYSTEM,
    PROVIDER_ROLE_SYSTEM,
)
from core.text import normalize
from service.fhir.models import ENTITY_TYPES, PROVIDER_ORGANIZATION, Clause, ResourceType, Search
from service.fhir.search.date_search import instant_query
from service.fhir.search.parameters import NPI_IDENTIFIER, PROVIDER_TYPE, ROLE_ID, TARGETS
from service.search_kit.filters import entity_filter
from service.search_kit.geo import distance_sort, radius_filter
from service.search_kit.limits import RESOURCE_SOURCE

_TOKEN_SYSTEMS = {
    F.taxonomyCodes: NUCC_SYSTEM,
    F.roleCodes: PROVIDER_ROLE_SYSTEM,
}
NOTHING: Json = {"bool": {"must_not": {"match_all": {}}}}
NETWORK_PARAMETER = "network"


@dataclass(frozen=True)
class _Documents:
    """Which search documents a type's resources come from beyond its clauses (and its entity
    type, ENTITY_TYPES): ``in_a_network``: those with an in-network row in force (an
    OrganizationAffiliation is an organisation in a network); ``organisation_clauses``: an
    ``organization`` clause leaves organisations' only (a Location's managing organisation);
    ``hits_counted``: the hits' total is the resources' (a hit is one resource)."""

    in_a_network: bool = False
    organisation_clauses: bool = False
    hits_counted: bool = True


_DOCUMENTS: dict[ResourceType, _Documents] = {
    "OrganizationAffiliation": _Documents(in_a_network=True),
    "Location": _Documents(organisation_clauses=True, hits_counted=False),
}


def _token_code(clause_field: str, value: str) -> str | None:
    """The code a token value asks for; None when its system is not the field's (``|code``
    asks for a code without a system: these fields' codes all have one)."""
    system, bar, code = value.rpartition("|")
    if bar and system != _TOKEN_SYSTEMS.get(clause_field):
        return None
    return code


def _provider_identifier(value: str) -> str | None:
    """The provider key an identifier token asks for: an NPI (in the NPI system) or the key a
    provider without one is served under (in the directory's own system)."""
    system, bar, code = value.rpartition("|")
    return code if not bar or system in (NPI_SYSTEM, PROVIDER_KEY_SYSTEM) else None


def reference_id(clause: Clause, value: str) -> str | None:
    """``Type/id``, a plain id or an absolute URL ending in ``Type/id`` (of the type the
    parameter's last link points at: ``location.organization`` an Organization)."""
    kind = TARGETS[clause.name.split(".")[-1]]
    parts = value.rstrip("/").split("/")
    if len(parts) == 1:
        return parts[0]
    return parts[-1] if parts[-2] == kind else None


def _equals(field: str, value: str | None) -> Json:
    """The documents whose ``field`` holds ``value``; a provider's key is its document's id
    (the search index keeps ``npi`` for sorting only)."""
    if not value:
        return NOTHING
    return {"ids": {"values": [value]}} if field == F.npi else {"term": {field: value}}


def _string(fields: tuple[str, ...], value: str, modifier: str | None) -> Json:
    wanted = normalize(value)
    matched: list[Json]
    if modifier == "exact":
        matched = [{"term": {field: wanted}} for field in fields]
    elif modifier == "contains":
        matched = [{"wildcard": {field: {"value": f"*{wanted}*"}}} for field in fields]
    else:
        matched = [{"prefix": {field: wanted}} for field in fields]
    return matched[0] if len(matched) == 1 else {"bool": {"should": matched}}


def _value_query(clause: Clause, index: int) -> Json:
    param, value = clause.param, clause.values[index]
    field = param.field
    if param.type == "date" and field:
        return instant_query(field, clause.prefixes[index], value)
    if field == PROVIDER_TYPE:  # provider organisations are OrgTypeCS "prvgrp"
        system, bar, code = value.rpartition("|")
        wanted = code == PROVIDER_ORGANIZATION[0] and (not bar or system == ORG_TYPE_SYSTEM)
        return {"match_all": {}} if wanted else NOTHING
    if field is None:  # answered from the plans: no provider has it
        return NOTHING
    if field == ROLE_ID:  # the provider's hit: its roles are picked from it (role_ids)
        key = role_provider_key(value)
        return _equals(F.npi, key)
    if field == NPI_IDENTIFIER:
        return _equals(F.npi, _provider_identifier(value))
    if param.type == "token":
        return _equals(
            field, value if field in (F.npi, F.locationIds) else _token_code(field, value)
        )
    if param.type == "reference":
        return _equals(field, reference_id(clause, value))
    return _string((field, *param.also), value, clause.modifier)


def _clause_query(clause: Clause) -> Json:
    alternatives = [_value_query(clause, i) for i in range(len(clause.values))]
    if len(alternatives) == 1:
        return alternatives[0]
    return {"bool": {"should": alternatives, "minimum_should_match": 1}}


def _in_network(keys: tuple[str, ...], today: date | None) -> Json:
    if not keys or today is None:
        return NOTHING
    clauses = [in_network_clause(key, today) for key in keys]
    return clauses[0] if len(clauses) == 1 else {"bool": {"should": clauses}}


def _filters(search: Search, today: date | None) -> list[Json]:
    filters = [
        _clause_query(clause)
        for clause in search.clauses
        if not clause.name.startswith(NETWORK_PARAMETER)
    ]
    filters += [_in_network(keys, today) for keys in search.network_keys]
    documents = _DOCUMENTS.get(search.kind, _Documents())
    if documents.in_a_network:
        filters.append(in_network_clause(None, today) if today else NOTHING)
    entity_type = ENTITY_TYPES[search.kind]
    if entity_type:
        filters.append(entity_filter(entity_type))
    if documents.organisation_clauses and any(
        c.name.startswith("organization") for c in search.clauses
    ):
        filters.append(entity_filter("organization"))
    if search.near is not None:
        filters.append(radius_filter(search.near.lat, search.near.lng, search.near.miles))
    return filters


def sort_of(search: Search) -> list[Json]:
    by_npi = {F.npi: "asc"}
    if search.near is None:
        return [by_npi]
    return [distance_sort(search.near.lat, search.near.lng), by_npi]


def build_query(
    search: Search, size: int, after: list[Any] | None, today: date | None = None
) -> Json:
    """``today``: the day a network clause asks about (``search.network_keys``)."""
    body: Json = {
        "query": {"bool": {"filter": _filters(search, today)}},
        "sort": sort_of(search),
        "size": size,
        "track_total_hits": _DOCUMENTS.get(search.kind, _Documents()).hits_counted,
        "_source": list(RESOURCE_SOURCE),
    }
    if after is not None:
        body["search_after"] = after
    return body


def members_query(keys: list[str], today: date, size: int) -> Json:
    """The individuals with an in-network row in force of one of these plan years (the
    PractitionerRoles a network page brings along)."""
    return {
        "query": {
            "bool": {
                "filter": [
                    {"term": {F.entityType: "individual"}},
                    {"bool": {"should": [in_network_clause(key, today) for key in keys]}},
                ]
            }
        },
        "sort": [{F.npi: "asc"}],
        "size": size,
        "_source": list(RESOURCE_SOURCE),
    }
