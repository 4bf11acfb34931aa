"""The check of one location of a hit against the parameters a Location search applies to each
location (a hit is a provider: its locations are matched one by one), and how far it is (pure)."""

from __future__ import annotations

from core.documents import Location
from core.fhir_terms import address_terms, city_terms, matches, postal_terms, state_terms
from service.fhir.models import Clause, Near, Search
from service.search_kit.geo import miles_inside


def _location_value(clause: Clause, value: str, location: Location) -> bool:
    address = location["address"]
    if clause.name == "_id":
        return value == location["id"]
    name = clause.name.removeprefix("location.")
    if name == "address-postalcode":
        terms = postal_terms(address["zip"])
    elif name == "address-city":
        terms = city_terms(address)
    elif name == "address-state":
        terms = state_terms(address)
    else:
        terms = address_terms(address)
    return matches(terms, value, clause.modifier)


def miles_inside_near(near: Near, location: Location) -> float | None:
    """The location's distance when it is inside the near search's radius (the one rule of
    service.search_kit.geo); else None."""
    return miles_inside(near.lat, near.lng, location, near.miles)


def location_matches(search: Search, location: Location) -> bool:
    for clause in search.clauses:
        if clause.param.per_location and not any(
            _location_value(clause, value, location) for value in clause.values
        ):
            return False
    return search.near is None or miles_inside_near(search.near, location) is not None
