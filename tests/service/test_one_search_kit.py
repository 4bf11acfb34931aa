"""/v2 search and /fhir ask the search index through one kit (service.search_kit): a FHIR near
search and the /v2 search of the same point, radius and kind of provider find the same
providers in the same order (the same radius filter, in-radius tolerance and distance sort),
each told at the same distance."""

from __future__ import annotations

import itertools
import math

import pytest

from core.documents import Json
from tests.conftest import ApiClient
from tests.service.fhir import fhir_rows as F
from tests.service.search.calls import all_results

EARTH_RADIUS_MILES = 3958.7613  # the arc distance's sphere (Elasticsearch's GeoUtils)


def _miles(a: tuple[float, float], b: tuple[float, float]) -> float:
    lat1, lng1, lat2, lng2 = map(math.radians, (*a, *b))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lng2 - lng1) / 2) ** 2
    )
    return 2 * EARTH_RADIUS_MILES * math.asin(math.sqrt(h))


async def _a_busy_point(api: ApiClient, auth: dict[str, str]) -> tuple[float, float]:
    """The practice location of a sample individual, as the service places it."""
    npi = F.individuals()[0]["NPI"]
    response = await api.get(f"/v2/providers/{npi}/locations", headers=auth)
    located = [loc for loc in await response.json() if loc["address"]["lat"] is not None]
    return located[0]["address"]["lat"], located[0]["address"]["lng"]


def _key(result: Json) -> str:
    """The id FHIR gives a provider: its NPI as published (the sample's all have one)."""
    return str((result["npis"] or [result["id"]])[0])


def _practitioner(role: Json) -> str:
    return str(role["practitioner"]["reference"]).removeprefix("Practitioner/")


@pytest.mark.parametrize("radius", [5.0, 25.0])
async def test_a_fhir_near_search_and_the_v2_search_agree(
    api: ApiClient, auth_header: dict[str, str], radius: float
) -> None:
    lat, lng = await _a_busy_point(api, auth_header)
    v2 = await all_results(
        api,
        auth_header,
        location={"lat": lat, "lng": lng},
        radius=radius,
        entityType="individual",
        sort="distance",
    )
    pages = await F.walk(api, "PractitionerRole", [("near", f"{lat}|{lng}|{radius}|mi")])
    entries = [e for p in pages for e in p.get("entry", []) if e["search"]["mode"] == "match"]
    fhir_order = list(dict.fromkeys(_practitioner(e["resource"]) for e in entries))
    assert len(v2) > 1
    assert fhir_order == [_key(r) for r in v2]
    # Each told at its nearest location's distance, nearest first, inside the radius.
    told = {
        _practitioner(e["resource"]): e["search"]["extension"][0]["valueDistance"]["value"]
        for e in entries
    }
    for result in v2:
        nearest = result["locations"][0]
        position = (nearest["address"]["lat"], nearest["address"]["lng"])
        assert abs(_miles((lat, lng), position) - nearest["distance"]) < 0.01
        assert nearest["distance"] <= radius + 0.01
        assert abs(told[_key(result)] - nearest["distance"]) < 0.01
    distances = [r["locations"][0]["distance"] for r in v2]
    assert all(a <= b for a, b in itertools.pairwise(distances))
