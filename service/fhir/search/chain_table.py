"""Where each chained parameter the CapabilityStatement declares is answered, decided by where
its target can live (pure), and the queries that resolve a chain across stores.

A resource type lives in one or more stores (LIVES_IN). A chain ``head.tail`` on a type asks
for the resources whose ``head`` reference points at a target matching ``tail``; it is
answered (ROUTES):

- ``document``: from the searched document itself. The target is built from the same search
  document (a role's practitioner and locations are its provider's; a Location's managing
  organisation and an affiliation's participating organisation are the provider itself), so no
  other store can hold it: a county (a plans Location) is nobody's practice site, and payers
  and networks manage no site.
- ``plans``: in memory, over the plans-built resources (service.fhir.sources.memory): a network, a
  payer and a county live only there (an InsurancePlan's ownedBy and coverageArea, a network's
  partOf, a role's or an affiliation's network never point at what the search index holds).
- ``stores``: resolved (service.fhir.sources.chains): the targets matching ``tail`` are found
  in every store their type lives in, then the resources naming one of them. A payer publishes
  HealthcareServices and Endpoints (plans index) naming provider organisations (search index)
  and its endpoints (plans index).
- ``terms``: the published document's own terms (indexer.assembly.plan_net_published): a
  HealthcareService's sites are the payer's, kept by display only (no served Location is
  referenced), so only what the payer wrote of their address is there to match (their
  organisation and type are not kept: those chains match nothing).
- ``absent``: the element is never served: every parameter of it matches nothing.
"""

from __future__ import annotations

from datetime import date
from typing import Final, Literal

from core.documents import Json
from core.index_contract import PLAN_FIELDS
from service.fhir.models import Clause, ResourceType, Search
from service.fhir.search.parameters import PARAMETERS, TARGETS
from service.fhir.search.published_query import published_query
from service.fhir.search.query import build_query

# The most targets a chain resolves to, and the most published resources read to learn which
# targets they name (within Elasticsearch's result window): past both, the search is refused.
MAX_CHAIN_TARGETS: Final = 10_000
Store = Literal["search", "plans", "published"]
Route = Literal["document", "plans", "stores", "terms", "absent"]

# search: the search index (providers); plans: built in memory from the plans index's plans;
# published: the documents of what payers publish (in the plans index).
LIVES_IN: Final[dict[ResourceType, tuple[Store, ...]]] = {
    "Practitioner": ("search",),
    "PractitionerRole": ("search",),
    "OrganizationAffiliation": ("search",),
    "Organization": ("search", "plans"),  # providers; payers and networks
    "Location": ("search", "plans"),  # practice sites; counties plans are sold in
    "InsurancePlan": ("plans",),
    "HealthcareService": ("published",),
    "Endpoint": ("published",),
}
ROUTES: Final[dict[tuple[ResourceType, str], Route]] = {
    ("PractitionerRole", "practitioner"): "document",
    ("PractitionerRole", "location"): "document",
    ("PractitionerRole", "network"): "plans",
    ("PractitionerRole", "organization"): "absent",
    ("PractitionerRole", "service"): "absent",
    ("PractitionerRole", "endpoint"): "absent",
    ("Organization", "partof"): "plans",
    ("Organization", "endpoint"): "absent",
    ("Location", "organization"): "document",
    ("Location", "partof"): "absent",
    ("Location", "endpoint"): "absent",
    ("OrganizationAffiliation", "participating-organization"): "document",
    ("OrganizationAffiliation", "location"): "document",
    ("OrganizationAffiliation", "network"): "plans",
    ("OrganizationAffiliation", "primary-organization"): "absent",
    ("OrganizationAffiliation", "service"): "absent",
    ("OrganizationAffiliation", "endpoint"): "absent",
    ("HealthcareService", "organization"): "stores",
    ("HealthcareService", "endpoint"): "stores",
    ("HealthcareService", "location"): "terms",
    ("Endpoint", "organization"): "stores",
    ("InsurancePlan", "owned-by"): "plans",
    ("InsurancePlan", "administered-by"): "plans",
    ("InsurancePlan", "coverage-area"): "plans",
}
# The element of a published resource that a resolved chain's head names.
REFERENCE_ELEMENTS: Final[dict[tuple[ResourceType, str], str]] = {
    ("HealthcareService", "organization"): "providedBy",
    ("HealthcareService", "endpoint"): "endpoint",
    ("Endpoint", "organization"): "managingOrganization",
}


def route(kind: ResourceType, name: str) -> Route | None:
    """How the chain ``name`` of ``kind`` is answered; None for a parameter that is no chain."""
    head, dot, _ = name.partition(".")
    return ROUTES[(kind, head)] if dot else None


def inner_search(clause: Clause) -> Search:
    """The search of the chain's target that ``clause`` asks: ``organization.address=x`` on
    an Endpoint is ``Organization?address=x``."""
    head, _, tail = clause.name.partition(".")
    target = TARGETS[head]
    asked = Clause(tail, PARAMETERS[target][tail], clause.values, clause.modifier, clause.prefixes)
    return Search(target, (asked,))


def _bounded(body: Json, size: int, bound: int) -> Json:
    """Only the ids, at most ``size`` of them, the total counted up to past ``bound``."""
    return body | {"size": size, "_source": False, "sort": ["_doc"], "track_total_hits": bound + 1}


def named_query(kind: ResourceType, head: str, bound: int) -> Json:
    """The references ``kind``'s published resources hold in the element ``head`` names (at most
    ``bound`` resources read; the total says whether there are more)."""
    element = REFERENCE_ELEMENTS[(kind, head)]
    body = {"query": {"bool": {"filter": [{"term": {PLAN_FIELDS.resourceType: kind}}]}}}
    return _bounded(body, bound, bound) | {"_source": [f"{PLAN_FIELDS.resource}.{element}"]}


def providers_query(inner: Search, ids: list[str] | None, bound: int, today: date) -> Json:
    """The search documents of the providers ``inner`` matches (among ``ids`` when given)."""
    body = build_query(inner, 0, None, today)
    if ids is not None:
        body["query"]["bool"]["filter"].append({"ids": {"values": ids}})
    return _bounded(body, bound if ids is None else len(ids), bound)


def published_targets_query(inner: Search, ids: list[str] | None, bound: int) -> Json:
    """The published documents ``inner`` matches (among these resource ids when given)."""
    body = published_query(inner, 0, None)
    if ids is not None:
        body["query"]["bool"]["filter"].append({"terms": {PLAN_FIELDS.id: ids}})
    return _bounded(body, bound if ids is None else len(ids), bound)
