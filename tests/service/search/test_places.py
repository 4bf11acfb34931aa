"""Location forms -> points (pure, offline)."""

from __future__ import annotations

import pytest

from service.search.places import (
    CityLocation,
    LatLng,
    UnknownPlace,
    ZipLocation,
    resolve,
)


def test_every_form_resolves() -> None:
    by_zip = resolve(ZipLocation(zip="10013"))
    assert (by_zip.lat, by_zip.lng, by_zip.resolved_from) == (40.7185, -74.0025, "zip")
    assert resolve("10013-1234") == by_zip
    assert resolve("10013") == by_zip
    point = resolve(LatLng(lat=40.71, lng=-74.0))
    assert (point.lat, point.lng, point.resolved_from) == (40.71, -74.0, "coordinates")
    assert resolve(" 40.71 , -74.00 ").resolved_from == "coordinates"
    austin = resolve(CityLocation(city="austin", state="tx"))
    assert austin.resolved_from == "city"
    assert 30.1 < austin.lat < 30.5 and -97.9 < austin.lng < -97.6
    assert resolve("Austin, TX") == austin


@pytest.mark.parametrize("text", ["00000", "Atlantis, TX", "somewhere", "91.0,10", "1,200"])
def test_unknown_places_are_refused(text: str) -> None:
    with pytest.raises(UnknownPlace):
        resolve(text)
