"""Location forms -> points (pure, offline), checked against published coordinates.

The expected points are the places' published coordinates (Wikipedia infoboxes, from GNIS and the
Census Gazetteer), written here by hand: never read from the data the service resolves with.
"""

from __future__ import annotations

import pytest
import zipcodes
from pydantic import ValidationError

from service.search.places import (
    CityLocation,
    LatLng,
    LocationInput,
    UnknownPlace,
    ZipLocation,
    resolve,
)
from service.web.problems import from_directory_error
from tests.conftest import Miles

TOLERANCE_MILES = 5.0
NYC = (40.7128, -74.0060)
ST_LOUIS = (38.6272, -90.1978)
AUSTIN = (30.2672, -97.7431)

# (location as a person writes it, published latitude, longitude)
PLACES: list[tuple[LocationInput, float, float]] = [
    ("Birmingham, AL", 33.5186, -86.8104),
    ("Anchorage, AK", 61.2167, -149.9000),
    ("Juneau, Alaska", 58.3019, -134.4197),
    ("Phoenix, AZ", 33.4484, -112.0740),
    ("Supai, AZ", 36.2369, -112.6892),  # ~200 people: a town only the ZIP table knows
    ("Little Rock, AR", 34.7361, -92.3311),
    ("Los Angeles, CA", 34.0500, -118.2500),
    ("Stockton, CA", 37.9756, -121.3008),
    ("SAN FRANCISCO, CALIFORNIA", 37.7775, -122.4164),
    ("Denver, Colorado", 39.7392, -104.9847),
    ("Hartford, CT", 41.7636, -72.6850),
    ("Wilmington, DE", 39.7461, -75.5467),
    ("Washington, D.C.", 38.9047, -77.0164),
    ("Washington DC", 38.9047, -77.0164),
    ("Miami, FL", 25.7753, -80.2089),
    ("Ft. Lauderdale, FL", 26.1333, -80.1500),
    ("St. Petersburg, FL", 27.7731, -82.6400),
    ("Atlanta, GA", 33.7489, -84.3900),
    ("Honolulu, HI", 21.3069, -157.8583),
    ("Boise, Idaho", 43.6150, -116.2017),
    ("Chicago", 41.8819, -87.6278),  # no state: one Chicago dominates
    ("Springfield, IL", 39.7994, -89.6550),
    ("Indianapolis, IN", 39.7683, -86.1581),
    ("Ft Wayne IN", 41.0808, -85.1392),
    ("Des Moines, IA", 41.5908, -93.6208),
    ("Wichita, KS", 37.6889, -97.3361),
    ("Louisville, KY", 38.2542, -85.7594),
    ("New Orleans, LA", 29.9511, -90.0715),
    ("Portland, Maine", 43.6592, -70.2553),
    ("Baltimore, MD", 39.2889, -76.6153),
    ("Boston, MA", 42.3601, -71.0589),
    ("Detroit, MI", 42.3314, -83.0458),
    ("Minneapolis MN", 44.9778, -93.2650),
    ("St. Paul, MN", 44.9442, -93.0936),
    ("Jackson, MS", 32.2989, -90.1847),
    ("St. Louis, MO", *ST_LOUIS),
    ("Saint Louis, Missouri", *ST_LOUIS),
    ("  st.   LOUIS ,  mo  ", *ST_LOUIS),
    (CityLocation(city="St Louis", state="Missouri"), *ST_LOUIS),
    ("Kansas City, MO", 39.0997, -94.5786),
    ("Billings, MT", 45.7867, -108.5372),
    ("Omaha, NE", 41.2611, -95.9375),
    ("Las Vegas, NV", 36.1750, -115.1372),
    ("Manchester, NH", 42.9908, -71.4633),
    ("Newark, NJ", 40.7356, -74.1722),
    ("Albuquerque, NM", 35.0844, -106.6506),
    ("New York, NY", *NYC),
    ("NYC", *NYC),
    ("new york city", *NYC),
    ("10013-1234", *NYC),  # a ZIP+4 in Tribeca
    ("Brooklyn, NY", 40.6928, -73.9903),
    ("Bronx, NY", 40.8372, -73.8861),
    ("The Bronx", 40.8372, -73.8861),
    # Queens spans ~20 miles: GeoNames' point (Woodhaven) is 5.0 mi from the infobox's
    ("Queens, NY", 40.7500, -73.8667),
    ("Manhattan, NY", 40.7833, -73.9667),
    ("Staten Island, NY", 40.5795, -74.1502),
    ("Mt. Vernon, NY", 40.9139, -73.8303),
    ("Charlotte, NC", 35.2272, -80.8431),
    ("Winston-Salem NC", 36.1028, -80.2606),
    ("Fargo, ND", 46.8772, -96.7894),
    ("Columbus, Ohio", 39.9622, -83.0006),
    ("Oklahoma City, OK", 35.4686, -97.5214),
    ("Portland, OR", 45.5200, -122.6819),
    ("Philadelphia, PA", 39.9528, -75.1636),
    ("Providence, RI", 41.8236, -71.4222),
    ("Charleston, SC", 32.7833, -79.9333),
    ("Sioux Falls, SD", 43.5364, -96.7317),
    ("Nashville, TN", 36.1622, -86.7744),
    ("Austin, Texas", *AUSTIN),
    ("Austin TX", *AUSTIN),
    (CityLocation(city="austin", state="tx"), *AUSTIN),
    ("Houston, TX 77002", 29.7628, -95.3831),  # the ZIP answers: downtown
    ("Ft. Worth, TX", 32.7500, -97.3333),
    ("El Paso, TX", 31.7592, -106.4867),
    ("Terlingua, TX", 29.3214, -103.6161),  # a ZIP-table town
    ("Salt Lake City Utah", 40.7608, -111.8911),
    ("Burlington, VT", 44.4758, -73.2125),
    ("Virginia Beach, VA", 36.8528, -75.9778),
    ("Seattle, WA", 47.6097, -122.3331),
    ("Charleston West Virginia", 38.3497, -81.6328),
    ("Milwaukee, WI", 43.0500, -87.9500),
    ("Cheyenne, WY", 41.1400, -104.8197),
    ("San Juan, PR", 18.4500, -66.0667),
    ("Ponce, Puerto Rico", 18.0117, -66.6139),
    ("Hagåtña, GU", 13.4767, 144.7500),
    ("Hagatna, Guam", 13.4767, 144.7500),
    ("Charlotte Amalie, VI", 18.3333, -64.9333),
    ("Pago Pago, AS", -14.2794, -170.7006),
    ("Saipan, MP", 15.1833, 145.7500),
]


@pytest.mark.parametrize(("location", "lat", "lng"), PLACES, ids=[str(p[0]) for p in PLACES])
def test_places_resolve_near_their_published_coordinates(
    location: LocationInput, lat: float, lng: float, miles: Miles
) -> None:
    place = resolve(location)
    off = miles((place.lat, place.lng), (lat, lng))
    assert off <= TOLERANCE_MILES, f"{location!r} -> {place.label}, {off:.1f} mi off"


def test_the_table_is_broad() -> None:
    assert len(PLACES) >= 50
    written = [p[0] for p in PLACES if isinstance(p[0], str)]
    states = {text.replace(".", "").split()[-1].upper() for text in written if "," in text}
    assert {"CA", "NY", "TX", "PR", "GU", "VI", "AS", "MP"} <= states


def test_labels_and_sources() -> None:
    st_louis = resolve("Saint Louis, MO")
    assert (st_louis.label, st_louis.resolved_from, st_louis.source) == (
        "St. Louis, MO",
        "city",
        "geonames",
    )
    assert resolve("New York, NY").label == "New York City, NY"
    assert resolve("Bronx, NY").label == "The Bronx, NY"
    supai = resolve("Supai, AZ")
    assert (supai.label, supai.resolved_from, supai.source) == ("Supai, AZ", "city", "zipcodes")
    by_zip = resolve(ZipLocation(zip="10013"))
    assert (by_zip.lat, by_zip.lng) == (40.7185, -74.0025)
    assert (by_zip.label, by_zip.resolved_from, by_zip.source) == (
        "10013 New York, NY",
        "zip",
        "zipcodes",
    )
    assert resolve("10013") == resolve("10013-1234") == resolve("10013 New York, NY") == by_zip
    point = resolve(LatLng(lat=40.71, lng=-74.0))
    assert (point.lat, point.lng, point.resolved_from, point.source) == (
        40.71,
        -74.0,
        "coordinates",
        "coordinates",
    )
    assert resolve(" 40.71 , -74.00 ") == point


def test_forms_of_one_place_resolve_alike() -> None:
    austin = resolve("Austin, TX")
    for form in ["austin,tx", "AUSTIN  TX", "Austin, Texas", "Austin Texas USA", "Austin, TX, US"]:
        assert resolve(form) == austin, form
    assert resolve(CityLocation(city="Austin", state="Texas")) == austin
    assert resolve("Washington, District of Columbia") == resolve("washington dc")


def test_a_zip_with_a_city_wins_but_must_lie_in_the_stated_state() -> None:
    assert resolve("Houston, TX 77002") == resolve("77002")
    assert resolve("Dallas TX 77002") == resolve("77002")  # postal city names vary: not checked
    with pytest.raises(UnknownPlace) as refused:
        resolve("Houston, CA 77002")
    assert "77002 is in TX" in str(refused.value)
    assert refused.value.suggestions == ("77002 Houston, TX",)


def test_a_misspelt_city_suggests_the_closest_known_places() -> None:
    with pytest.raises(UnknownPlace) as refused:
        resolve("Stockon, CA")
    assert "did you mean Stockton, CA?" in str(refused.value)
    assert refused.value.suggestions[0] == "Stockton, CA"
    assert refused.value.field == "location"


def test_an_unknown_state_suggests_states_or_the_city_where_it_is() -> None:
    with pytest.raises(UnknownPlace) as refused:
        resolve("Austin, Texsa")
    assert refused.value.suggestions[0] == "Austin, TX"
    with pytest.raises(UnknownPlace) as refused:
        resolve(CityLocation(city="Nowheresville", state="Pensylvania"))
    assert refused.value.suggestions[0] == "Pennsylvania"


def test_a_city_in_many_states_is_ambiguous_without_its_state() -> None:
    with pytest.raises(UnknownPlace) as refused:
        resolve("Springfield")
    # the three most populous Springfields, by the census
    assert set(refused.value.suggestions[:3]) == {
        "Springfield, MO",
        "Springfield, MA",
        "Springfield, IL",
    }
    assert "add the state" in str(refused.value)
    with pytest.raises(UnknownPlace) as refused:
        resolve("Kansas City")
    assert set(refused.value.suggestions) == {"Kansas City, MO", "Kansas City, KS"}


def test_suggestions_reach_the_problem_document() -> None:
    with pytest.raises(UnknownPlace) as refused:
        resolve("Stockon, CA")
    problem = from_directory_error(refused.value)
    assert problem.status == 404 and problem.errors is not None
    assert problem.errors[0]["field"] == "location"
    assert problem.errors[0].get("suggestions", [])[0] == "Stockton, CA"


def test_zips_at_zero_never_resolve() -> None:
    listed = zipcodes.list_all()  # type: ignore[no-untyped-call]
    zero = [e for e in listed if (float(e["lat"] or 0), float(e["long"] or 0)) == (0, 0)]
    for entry in zero:
        with pytest.raises(UnknownPlace):
            resolve(entry["zip_code"])
    with pytest.raises(UnknownPlace):
        resolve("North Pole, DC")  # 88888, a ZIP at 0,0 and nothing else


@pytest.mark.parametrize(
    "text",
    [
        "00000",
        "Atlantis, TX",
        "somewhere",
        "91.0,10",
        "1,200",
        "Texas",
        ", TX",
        "...",
        "Koror, PW",
        "Apo, AE",
    ],
)
def test_unknown_places_are_refused(text: str) -> None:
    with pytest.raises(UnknownPlace):
        resolve(text)


@pytest.mark.parametrize("state", ["T", "12", "", "T X 1", "x" * 33])
def test_city_objects_take_a_state_code_or_name(state: str) -> None:
    with pytest.raises(ValidationError):
        CityLocation(city="Austin", state=state)
