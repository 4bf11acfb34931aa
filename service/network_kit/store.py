"""The stored facts of a network question read from a multi-search's answers: every hit of a
search, and the facts the evaluation takes (``service.network_kit.evaluate.StoredFacts``) from
the plans (with the keys of those flagged as having a network), the lookup documents and the
coverage rows."""

from __future__ import annotations

from typing import cast

from core.documents import CoverageDoc, Json, LookupDoc, Plan
from core.index_contract import PLAN_FIELDS
from core.lookup_answers import stored_answer, stored_flags, stored_locations
from core.plans import plan_key_of
from service.errors import BackendUnavailable
from service.network_kit.evaluate import StoredFacts


def whole_hits(answer: Json) -> list[Json]:
    """Every hit of a search answer; a defect when the answer was larger than its window."""
    hits = answer["hits"]
    if hits["total"]["value"] > len(hits["hits"]):
        raise BackendUnavailable("coverage answer larger than the result window")
    return list(hits["hits"])


def _flagged_plans(hits: list[Json]) -> tuple[list[Json], frozenset[str]]:
    """The plans of these hits without their network flag, and the keys of those flagged
    (``networkRows``)."""
    plans: list[Json] = []
    with_network: set[str] = set()
    for hit in hits:
        plan = dict(hit["_source"])
        if plan.pop(PLAN_FIELDS.networkRows, False):
            with_network.add(plan_key_of(plan))
        plans.append(plan)
    return plans, frozenset(with_network)


def stored_facts(
    plan_hits: list[Json], lookups: list[Json], coverage: list[Json]
) -> tuple[list[Json], StoredFacts]:
    """The plans of these hits without their network flag, and the facts from them, the hits
    of the lookup documents and the coverage rows."""
    stored, with_network = _flagged_plans(plan_hits)
    plans = cast(list[Plan], stored)
    answers = {hit["_id"]: cast(LookupDoc, hit["_source"]) for hit in lookups}  # by NPI
    return stored, StoredFacts(
        plans={plan_key_of(p): p for p in plans},
        # The provider as stored, written into the answer as it is (never parsed here).
        providers={npi: stored_answer(doc["provider"]) for npi, doc in answers.items()},
        locations={npi: stored_locations(doc) for npi, doc in answers.items()},
        flags={npi: stored_flags(doc) for npi, doc in answers.items()},
        coverage=[cast(CoverageDoc, hit["_source"]) for hit in coverage],
        networks=with_network,
    )
