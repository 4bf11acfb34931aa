"""Every chain the CapabilityStatement declares has a decided way to be answered, one its target's
stores allow (pure: the table against the statement and against itself)."""

from __future__ import annotations

from service.fhir.models import Clause, Param, Search
from service.fhir.render.capability import capability_statement
from service.fhir.search.chain_table import LIVES_IN, REFERENCE_ELEMENTS, ROUTES
from service.fhir.search.parameters import TARGETS
from service.fhir.search.published_query import published_query
from service.fhir.sources.chains import RESOLVERS


def _declared_chains() -> set[tuple[str, str]]:
    """(type, chain) as the CapabilityStatement's documentation lists them."""
    statement = capability_statement("http://x/fhir", "1", "2026-01-01")
    found: set[tuple[str, str]] = set()
    for resource in statement["rest"][0]["resource"]:
        for param in resource["searchParam"]:
            text = param.get("documentation", "")
            if text.startswith("chains: "):
                chains = text.removeprefix("chains: ").split(", ")
                assert all(c.startswith(param["name"] + ".") for c in chains), chains
                found |= {(resource["type"], chain) for chain in chains}
    return found


def test_every_declared_chain_has_a_route_and_every_route_is_declared() -> None:
    declared = _declared_chains()
    assert ("Endpoint", "organization.address") in declared  # issue 45's
    heads = {(kind, chain.partition(".")[0]) for kind, chain in declared}
    assert heads == set(ROUTES)


def test_each_route_fits_where_its_target_lives() -> None:
    for (kind, head), route in ROUTES.items():
        target = TARGETS[head]
        if route == "document":  # built from the searched document: the same store
            assert "search" in LIVES_IN[kind] and "search" in LIVES_IN[target], (kind, head)
        elif route == "plans":
            assert "plans" in LIVES_IN[target], (kind, head)
        elif route == "stores":
            assert (kind, head) in REFERENCE_ELEMENTS
            for store in LIVES_IN[target]:  # every store it lives in is searched
                assert (target, store) in RESOLVERS, (kind, head, store)
        elif route == "terms":
            assert LIVES_IN[kind] == ("published",), (kind, head)
    # A resource published by a payer names organisations that live in two stores.
    assert LIVES_IN[TARGETS["organization"]] == ("search", "plans")
    assert ROUTES[("Endpoint", "organization")] == "stores"
    assert ROUTES[("HealthcareService", "organization")] == "stores"


def test_a_resolved_chain_also_asks_for_the_targets_it_found() -> None:
    param = Param("string", "terms", "managingOrganization.address")
    clause = Clause("organization.address", param, ("providence",), resolved=("Organization/1",))
    query = published_query(Search("Endpoint", (clause,)), 10, None)
    asked = query["query"]["bool"]["filter"][1]["bool"]["should"]
    assert {"terms": {"terms": ["organization=Organization/1"]}} in asked
    # Resolved to nothing: only its own terms, which hold no organisation's address.
    nothing = published_query(
        Search("Endpoint", (Clause("organization.address", param, ("x",), resolved=()),)), 10, None
    )
    assert nothing["query"]["bool"]["filter"][1] == {"prefix": {"terms": "organization.address=x"}}
