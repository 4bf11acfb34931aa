"""Clauses about taxonomy codes (pure): a specialty or a care concept as a filter, and the tiers
that order their results. Tier weights are above the closeness score (at most 3), so distance
orders providers within each tier.
"""

from __future__ import annotations

from core.documents import Json
from core.index_contract import SEARCH_FIELDS as F

SPECIALTY_BOOST = 5.0  # a specialty beside a name: ranks, does not filter
PRIMARY_WEIGHT = 20.0  # the specialty as the provider's primary taxonomy
PRACTISING_WEIGHT = 10.0  # not a trainee
FIRST_CHOICE_WEIGHT = 40.0  # a concept's first choice as the primary taxonomy ...
ALSO_TREATS_WEIGHT = 20.0  # ... above a specialty that also treats it
TRAINEE_CODE = "390200000X"  # NUCC: Student in an Organized Health Care Education/Training


def codes_clause(field: str, codes: list[str]) -> Json:
    exact = [c for c in codes if not c.endswith("*")]
    clauses: list[Json] = [{"terms": {field: exact}}] if exact else []
    clauses += [{"prefix": {field: c[:-1]}} for c in codes if c.endswith("*")]
    return {"bool": {"should": clauses, "minimum_should_match": 1}}


def specialty_clause(codes: list[str], boost: float | None = None) -> Json:
    """Providers with any of these taxonomy codes ("207V*" is a prefix)."""
    body = codes_clause(F.taxonomyCodes, codes)
    if boost is not None:
        body["bool"]["boost"] = boost
    return body


def specialty_rank(codes: list[str]) -> list[Json]:
    """A specialty search: the specialty as the provider's primary taxonomy first, then
    practising providers before trainees (NUCC's student code)."""
    return [_tier(F.primaryTaxonomyCodes, codes, PRIMARY_WEIGHT), _practising()]


def _practising() -> Json:
    return {
        "constant_score": {
            "filter": {"bool": {"must_not": [{"term": {F.taxonomyCodes: TRAINEE_CODE}}]}},
            "boost": PRACTISING_WEIGHT,
        }
    }


def _tier(field: str, codes: list[str], weight: float) -> Json:
    return {"constant_score": {"filter": codes_clause(field, codes), "boost": weight}}


def concept_rank(first: list[str], also: list[str], *, practising: bool) -> list[Json]:
    """A concept search: providers whose primary taxonomy is a first choice, then one that also
    treats it, then the rest of the filter (a secondary taxonomy); practising before trainees."""
    tiers = [_tier(F.primaryTaxonomyCodes, first, FIRST_CHOICE_WEIGHT)]
    if also:
        tiers.append(_tier(F.primaryTaxonomyCodes, also, ALSO_TREATS_WEIGHT))
    return [*tiers, _practising()] if practising else tiers


def concept_boost(first: list[str], also: list[str]) -> list[Json]:
    """A concept beside a name: a little above the rest, never above the name's own match."""
    boosts = [_tier(F.taxonomyCodes, first, SPECIALTY_BOOST)]
    if also:
        boosts.append(_tier(F.taxonomyCodes, also, SPECIALTY_BOOST / 2))
    return boosts
