"""The offline ZIP table never places anything at 0,0; core.geo keeps its public names."""

from __future__ import annotations

import zipcodes

from core.geo import all_zip_places, haversine_miles, lookup_zip, zip5


def test_zips_without_real_coordinates_are_unknown_not_at_zero() -> None:
    listed = zipcodes.list_all()  # type: ignore[no-untyped-call]
    zero = [
        e["zip_code"] for e in listed if (float(e["lat"] or 0), float(e["long"] or 0)) == (0, 0)
    ]
    assert zero, "the package still ships ZIPs at 0,0 (military, PO box)"
    assert all(lookup_zip(code) is None for code in zero)
    assert all((place.lat, place.lng) != (0.0, 0.0) for place in all_zip_places())


def test_a_real_zip_keeps_its_centroid() -> None:
    place = lookup_zip("10013")
    assert place is not None and place.state == "NY"
    assert 40.7 < place.lat < 40.73 and -74.01 < place.lng < -73.99
    assert lookup_zip("10013-1234") == lookup_zip("100131234") == place
    assert zip5("10013-1234") == "10013" and zip5("1001") is None


def test_haversine_miles() -> None:
    # Los Angeles City Hall to New York City Hall: about 2,445 miles
    assert 2430 < haversine_miles(34.0537, -118.2428, 40.7127, -74.0059) < 2460
    assert haversine_miles(40.0, -75.0, 40.0, -75.0) == 0.0
