"""Schemathesis extensions (loaded through SCHEMATHESIS_HOOKS): strategies for the string formats
the OpenAPI document names for rules JSON Schema cannot state (a check digit, a place that
exists, a cursor the service issued), so generated "valid" data is valid in fact.

The ``{city, state}`` location is two fields that are valid only together: ``map_body`` swaps a
pair that satisfies the schema (city 1-64 characters, state a code or name) but names no known
city for a known one. A pair that breaks the schema is left alone, so negative cases stay
negative.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import strategies as st

from core.geo import all_zip_places
from core.npi import with_check_digit
from core.placenames import state_names
from service.search.cursor import encode_cursor
from service.search.models import SearchRequest
from service.search.places import CityLocation, UnknownPlace, resolve

_PLACES = list(all_zip_places())
_ZIPS = st.sampled_from(sorted(p.zip for p in _PLACES))
# The ZIP table's city names in the states and territories (not its military "cities").
_CITIES = st.sampled_from(sorted({(p.city, p.state) for p in _PLACES if p.state in state_names()}))
_COORDINATES = st.tuples(
    st.floats(-90, 90, allow_nan=False).map(lambda v: round(v, 4)),
    st.floats(-180, 180, allow_nan=False).map(lambda v: round(v, 4)),
)

schemathesis.openapi.format(
    "npi", st.integers(100_000_000, 299_999_999).map(lambda n: with_check_digit(str(n)))
)
schemathesis.openapi.format(
    "us-zip", st.one_of(_ZIPS, st.tuples(_ZIPS, st.from_regex(r"\A-?[0-9]{4}\Z")).map("".join))
)
schemathesis.openapi.format(
    "us-place",
    st.one_of(
        _ZIPS,
        _CITIES.map(lambda pair: f"{pair[0]}, {pair[1]}"),
        _COORDINATES.map(lambda point: f"{point[0]},{point[1]}"),
    ),
)
schemathesis.openapi.format(
    "search-cursor",
    st.builds(
        lambda query, score, npi: encode_cursor(
            SearchRequest(query=query), None, [score, with_check_digit(str(npi))]
        ),
        st.sampled_from(["smith", "cardiology", "clinic"]),
        st.floats(0, 100, allow_nan=False),
        st.integers(100_000_000, 199_999_999),
    ),
)


def _known_city(location: dict[str, Any], pair: tuple[str, str]) -> dict[str, Any]:
    try:
        resolve(CityLocation.model_validate(location))
    except UnknownPlace:
        return {"city": pair[0], "state": pair[1]}
    except ValueError:  # breaks the schema: a negative case, keep it
        return location
    return location


@schemathesis.hook
def flatmap_body(context: schemathesis.HookContext, body: Any) -> st.SearchStrategy[Any]:
    location = body.get("location") if isinstance(body, dict) else None
    if isinstance(location, dict) and set(location) == {"city", "state"}:
        return _CITIES.map(lambda pair: {**body, "location": _known_city(location, pair)})
    return st.just(body)
