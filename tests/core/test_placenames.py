"""Place-name keys and state names: the spellings people write meet the spellings the data has."""

from __future__ import annotations

import pytest

from core.placenames import closest_states, place_key, state_code, words


@pytest.mark.parametrize(
    "spellings",
    [
        ["St. Louis", "Saint Louis", "ST LOUIS", "st.louis", "  st   louis "],
        ["Ft. Worth", "Fort Worth", "FT WORTH"],
        ["Mt. Vernon", "Mount Vernon", "mt vernon"],
        ["Ste. Genevieve", "Sainte Genevieve"],
        ["Hagåtña", "Hagatna", "HAGÅTÑA"],
        ["O'Fallon", "O Fallon", "O\u2019Fallon"],
        ["Winston-Salem", "Winston Salem"],
        ["Añasco", "Anasco"],
        ["Coeur d'Alene", "Coeur D Alene"],
    ],
)
def test_spellings_of_one_name_share_a_key(spellings: list[str]) -> None:
    assert len({place_key(spelling) for spelling in spellings}) == 1, spellings


def test_keys_keep_different_names_apart() -> None:
    assert place_key("Fort Worth") != place_key("Forth Worth")
    assert place_key("Mount Vernon") != place_key("Vernon")
    assert place_key("Fortuna") == "fortuna"  # short forms are whole words only
    assert place_key("Mountain View") == "mountainview"


def test_words_are_folded_lower_case_ascii() -> None:
    assert words("  Pago   Pago ") == ["pago", "pago"]
    assert words("Faga\u2018alu") == ["faga", "alu"]  # the okina separates, as any other mark
    assert words("San Germán") == ["san", "german"]
    assert words("...") == []


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("TX", "TX"),
        ("tx", "TX"),
        ("Texas", "TX"),
        (" TEXAS ", "TX"),
        ("New York", "NY"),
        ("west virginia", "WV"),
        ("D.C.", "DC"),
        ("District of Columbia", "DC"),
        ("Puerto Rico", "PR"),
        ("Guam", "GU"),
        ("Virgin Islands", "VI"),
        ("U.S. Virgin Islands", "VI"),
        ("American Samoa", "AS"),
        ("Northern Mariana Islands", "MP"),
        ("Texsa", None),
        ("XT", None),
        ("AE", None),  # armed forces mail, not a place
    ],
)
def test_states_by_code_or_name(text: str, code: str | None) -> None:
    assert state_code(text) == code


def test_closest_states_for_a_misspelt_name() -> None:
    assert closest_states("Texsa")[0] == "TX"
    assert closest_states("Pensylvania")[0] == "PA"
    assert closest_states("Qwerty") == []
