"""The gazetteer's tables: which place a name means, and where the answer comes from."""

from __future__ import annotations

from core import gazetteer
from core.placenames import place_key


def _find(name: str, state: str) -> gazetteer.Place:
    place = gazetteer.find(place_key(name), state)
    assert place is not None, (name, state)
    return place


def test_cities_come_from_geonames_and_small_towns_from_zips() -> None:
    assert _find("Stockton", "CA").source == "geonames"
    supai = _find("Supai", "AZ")  # ~200 people, below GeoNames' 500: its ZIP's point
    assert (supai.source, supai.population) == ("zipcodes", 0)


def test_a_shared_name_in_one_state_means_the_most_populous_place() -> None:
    brooklyn = _find("Brooklyn", "NY")
    assert brooklyn.population > 2_000_000  # the borough, not a hamlet of the same name


def test_names_people_use_that_the_sources_spell_otherwise() -> None:
    nyc = _find("New York City", "NY")
    assert _find("New York", "NY") is nyc
    assert _find("NYC", "NY") is nyc
    assert _find("Bronx", "NY") is _find("The Bronx", "NY")
    assert _find("DC", "DC") is _find("Washington", "DC")
    assert _find("St. Louis", "MO").label == "St. Louis, MO"  # GeoNames' own spelling


def test_territories_are_keyed_by_their_usps_codes() -> None:
    for name, state in [
        ("San Juan", "PR"),
        ("Hagatna", "GU"),
        ("Charlotte Amalie", "VI"),
        ("Pago Pago", "AS"),
        ("Saipan", "MP"),
    ]:
        assert _find(name, state).state == state


def test_a_name_without_a_state_needs_one_clearly_dominant_place() -> None:
    assert (chicago := gazetteer.dominant(gazetteer.named("chicago"))) is not None
    assert chicago.label == "Chicago, IL"
    assert gazetteer.dominant(gazetteer.named("springfield")) is None
    assert gazetteer.dominant(gazetteer.named("kansascity")) is None
    assert gazetteer.dominant(gazetteer.named("nowhereatall")) is None
    springfields = gazetteer.named("springfield")
    assert [p.population for p in springfields] == sorted(
        (p.population for p in springfields), reverse=True
    )


def test_closest_names() -> None:
    assert gazetteer.closest("stockon", "CA")[0].label == "Stockton, CA"
    assert gazetteer.closest(place_key("Indianapols"), None)[0].label == "Indianapolis, IN"
    assert gazetteer.closest("qqqqqqqq", "CA") == []


def test_towns_made_only_of_zips_at_zero_are_not_places() -> None:
    # 88888 "North Pole, DC" and the "Apo, NJ" PO boxes sit at "0","0" in the package
    assert gazetteer.find(place_key("North Pole"), "DC") is None
    assert gazetteer.find("apo", "NJ") is None
    assert gazetteer.find("apo", "AE") is None
