"""A search over the few resources built from the plans (``service.fhir.render.plans``),
evaluated in memory with the same meaning the query gives each parameter type (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from core.fhir_terms import matches
from service.fhir.models import Clause, Resource, Search
from service.fhir.render.plans import PlanResources, network, search_terms
from service.fhir.search.date_search import instant_matches
from service.fhir.search.parameters import PARAMETERS, TARGETS
from service.fhir.search.query import reference_id

Index = Mapping[str, Resource]  # "Type/id" -> resource, to follow chains


def _referenced(clause: Clause, value: str) -> str | None:
    """``Type/id`` of a reference value, read as the query reads it (None: another type)."""
    found = reference_id(clause, value)
    return None if found is None else f"{TARGETS[clause.name.split('.')[-1]]}/{found}"


def _holds(clause: Clause, index: int, resource: Resource, everything: Index) -> bool:
    value = clause.values[index]
    head, dot, tail = clause.name.partition(".")
    terms = search_terms(resource)
    if dot:  # a chain: a parameter of one of the referenced resources
        targets = [everything[ref] for ref in terms.get(head, []) if ref in everything]
        found = [term for target in targets for term in search_terms(target).get(tail, [])]
    else:
        found = terms.get(clause.name, [])
    param_type = clause.param.type
    if param_type == "date":
        return any(instant_matches(at, clause.prefixes[index], value) for at in found)
    if param_type == "token":  # terms hold "system|code", and the bare code ("|code": no system)
        return value in found
    if param_type == "reference":
        return _referenced(clause, value) in found
    return matches(found, value, clause.modifier)


def found_in_memory(
    search: Search, resources: Sequence[Resource], everything: Index
) -> list[Resource]:
    """The resources every clause holds for (one of its values), in the order given. ``near``
    and ``_text`` match none of them: plans and payers have no place and are not in /v2."""
    if search.near is not None or search.text is not None:
        return []
    return [
        resource
        for resource in resources
        if all(
            any(_holds(clause, i, resource, everything) for i in range(len(clause.values)))
            for clause in search.clauses
        )
    ]


def network_keys(search: Search, plans: PlanResources) -> tuple[tuple[str, ...], ...]:
    """The plan years each network clause of a role or affiliation search names: the network
    itself (``network``) or what its network Organization holds (``network.name``, ...)."""
    resolved = []
    networks = [(record.key, network(record)) for record in plans.records]
    for clause in search.clauses:
        head, dot, tail = clause.name.partition(".")
        if head != "network":
            continue
        if not dot:
            wanted = {_referenced(clause, value) for value in clause.values}
            keys = [key for key, org in networks if f"Organization/{org['id']}" in wanted]
        else:
            asked = replace(clause, name=tail, param=PARAMETERS["Organization"][tail])
            keys = [
                key
                for key, org in networks
                if any(_holds(asked, i, org, plans.index) for i in range(len(clause.values)))
            ]
        resolved.append(tuple(keys))
    return tuple(resolved)
