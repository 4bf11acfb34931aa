"""The terms FHIR string searches match (``name``, ``family``, ``given``, ``address*``): one rule
for the indexer, which stores them in the search document, and for the FHIR API, which reads a
search value and tells the locations of a hit apart with it.

A FHIR string parameter matches when a value starts with the searched text, ignoring case and
accents; values are kept in core.text's normalised form and matched as keyword prefixes. The
search document holds them as ``indexed_form`` writes them (the mapping lower-cases them); the
API's own comparisons are in lower case.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TypedDict

from core.documents import Address, Location, Provider
from core.plan_net_codes import provider_role
from core.text import indexed_form, normalize

_normalize_uncached = normalize.__wrapped__
_indexed_form_uncached = indexed_form.__wrapped__
_NOT_IN_ID = re.compile(r"[^A-Za-z0-9.-]+")


def searchable(values: Iterable[str | None], form: Callable[[str], str] = normalize) -> list[str]:
    """The distinct non-empty normalised values (in ``form``), in order (a loop: the lists are
    short, and this runs several times for every provider of a load)."""
    found: list[str] = []
    for value in values:
        if value and (term := form(value)) and term not in found:
            found.append(term)
    return found


def indexed(values: Iterable[str | None]) -> list[str]:
    """``searchable`` as a search document holds the values (core.text.indexed_form)."""
    return searchable(values, indexed_form)


def unique(values: Iterable[str | None]) -> list[str]:
    """The distinct non-empty values, in order."""
    found: list[str] = []
    for value in values:
        if value and value not in found:
            found.append(value)
    return found


def role_codes(provider: Provider) -> list[str]:
    """The ProviderRoleCS codes of the provider's taxonomies (PractitionerRole.code)."""
    return list(dict.fromkeys(provider_role(s["code"])[0] for s in provider["specialties"]))


def family_terms(provider: Provider) -> list[str]:
    return indexed([provider["lastName"]])


def given_terms(provider: Provider) -> list[str]:
    return indexed([provider["firstName"], provider["middleName"]])


def name_terms(
    provider: Provider, other_names: Sequence[str] = (), held: Sequence[str] = ()
) -> list[str]:
    """The name parts no other field the ``name`` parameter reads holds (family and given
    terms, and ``held``: the search document's whole names, core.search_fields): the whole
    HumanName text, prefix and suffix; organisation name, doing-business-as and other names."""
    person = (provider["firstName"], provider["middleName"], provider["lastName"])
    whole = " ".join(p for p in person if p)
    terms = indexed(
        [
            whole,
            provider["prefix"],
            provider["suffix"],
            provider["organizationName"],
            provider["doingBusinessAs"],
            *other_names,
        ]
    )
    return [term for term in terms if term not in held]


def postal_terms(zip_code: str | None) -> list[str]:
    """A ZIP+4 is found by its five digits as well."""
    if not zip_code:
        return []
    # Nearly every one is a US ZIP as the indexer writes it, "12345" or "12345-6789", whose
    # normalised words are plain to see: made here, not by normalize (five times the cost,
    # and its cache would hold ZIP+4s, nearly all distinct, instead of the names that repeat).
    if zip_code.isascii():
        if len(zip_code) == 5 and zip_code.isdigit():
            return [zip_code]
        first, dash, last = zip_code[:5], zip_code[5:6], zip_code[6:]
        if dash == "-" and len(last) == 4 and first.isdigit() and last.isdigit():
            return [f"{first} {last}", first]
    return searchable([zip_code, zip_code[:5]])


def address_terms(address: Address) -> list[str]:
    """What the ``address`` parameter matches: any part, or the whole address as written."""
    # Street lines are nearly all distinct: normalised uncached, they do not push the names
    # out of normalize's cache; the whole address is its normalised parts joined (normalize
    # never joins across a space), not normalised a second time.
    lines = [_normalize_uncached(line) for line in (address["line1"], address["line2"]) if line]
    places = [normalize(p) for p in (address["city"], address["state"]) if p]
    postal = postal_terms(address["zip"])
    whole = " ".join(term for term in (*lines, *places, *postal[:1]) if term)
    parts = [*lines, *places, *postal, whole]
    return list(dict.fromkeys(term for term in parts if term))


def city_terms(address: Address) -> list[str]:
    return searchable([address["city"]])


def state_terms(address: Address) -> list[str]:
    return searchable([address["state"]])


class LocationTerms(TypedDict):
    cities: list[str]
    states: list[str]
    postalCodes: list[str]
    addressParts: list[str]  # street lines and whole addresses: the ``address`` parameter
    # reads the city, state and ZIP terms too, which are indexed once, in their own fields


def location_terms(locations: Sequence[Location]) -> LocationTerms:
    """The search document's address fields: each location's terms (address_terms, as
    indexed_form writes them), merged, each part held by one field."""
    cities: list[str] = []
    states: list[str] = []
    postal: list[str] = []
    parts: list[str] = []
    for location in locations:
        address = location["address"]
        lines = [
            _indexed_form_uncached(line) for line in (address["line1"], address["line2"]) if line
        ]
        city = indexed_form(address["city"]) if address["city"] else ""
        state = indexed_form(address["state"]) if address["state"] else ""
        zips = postal_terms(address["zip"])
        places = [term for term in (city, state) if term]
        if city:
            cities.append(city)
        if state:
            states.append(state)
        postal += zips
        parts += lines
        parts.append(" ".join(term for term in (*lines, *places, *zips[:1]) if term))
    return {
        "cities": unique(cities),
        "states": unique(states),
        "postalCodes": unique(postal),
        "addressParts": unique(parts),
    }


def matches(terms: Sequence[str], searched: str, modifier: str | None = None) -> bool:
    """Whether one of ``terms`` matches ``searched`` as FHIR string search does: starts with
    (no modifier), equals (``exact``) or contains (``contains``), on normalised text."""
    wanted = normalize(searched)
    if modifier == "exact":
        return wanted in terms
    if modifier == "contains":
        return any(wanted in term for term in terms)
    return any(term.startswith(wanted) for term in terms)


def fhir_id(text: str) -> str:
    """A FHIR id (letters, digits, '-' and '.', at most 64) made from any key."""
    return _NOT_IN_ID.sub("-", text).strip("-")[:64]


def term(param: str, value: str) -> str:
    """A published resource's ``terms`` entry: ``param=value`` (strings normalised)."""
    return f"{param}={value}"
