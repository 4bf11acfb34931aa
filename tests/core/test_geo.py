"""The offline gazetteer never places anything at 0,0."""

from __future__ import annotations

import zipcodes

from core.geo import all_zip_places, lookup_city, lookup_zip


def test_zips_without_real_coordinates_are_unknown_not_at_zero() -> None:
    listed = zipcodes.list_all()  # type: ignore[no-untyped-call]
    zero = [
        e["zip_code"] for e in listed if (float(e["lat"] or 0), float(e["long"] or 0)) == (0, 0)
    ]
    assert zero, "the package still ships ZIPs at 0,0 (military, PO box)"
    assert all(lookup_zip(code) is None for code in zero)
    assert all((place.lat, place.lng) != (0.0, 0.0) for place in all_zip_places())
    assert lookup_city("Apo", "AE") is None  # a military 'city' made only of such ZIPs


def test_a_real_zip_keeps_its_centroid() -> None:
    place = lookup_zip("10013")
    assert place is not None and place.state == "NY"
    assert 40.7 < place.lat < 40.73 and -74.01 < place.lng < -73.99
