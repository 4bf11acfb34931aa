"""How a US place name is compared: one key per spelling family, and the states by name or code.

A key is the name's words, accents folded, lower-cased, with the usual abbreviations in one form
("Saint"/"St." -> "st", "Fort"/"Ft." -> "ft", "Mount"/"Mt." -> "mt"), joined without spaces:
"St. Louis", "Saint Louis" and "ST LOUIS" are all "stlouis"; "O'Fallon" and the USPS "O Fallon",
"Winston-Salem" and "Winston Salem", "Hagåtña" and "Hagatna" meet the same way.
"""

from __future__ import annotations

import re
from functools import cache

import us
from rapidfuzz import fuzz, process

from core.text import fold

_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
_SHORT_FORMS = {"saint": "st", "sainte": "ste", "fort": "ft", "mount": "mt"}
# Spellings of a state the package's names and codes do not cover.
_STATE_ALIASES = {
    "districtofcolumbia": "DC",
    "washingtondc": "DC",
    "usvirginislands": "VI",
    "usvi": "VI",
    "unitedstatesvirginislands": "VI",
    "cnmi": "MP",
    "marianas": "MP",
}
COUNTRY_WORDS = frozenset({"us", "usa", "unitedstates", "unitedstatesofamerica"})


def words(text: str) -> list[str]:
    """Lower-case ASCII words, accents folded; every other character separates words."""
    return _NOT_ALNUM.sub(" ", fold(text).casefold()).split()


def key_of_words(parts: list[str]) -> str:
    return "".join(_SHORT_FORMS.get(word, word) for word in parts)


def place_key(text: str) -> str:
    return key_of_words(words(text))


@cache
def _states() -> dict[str, str]:
    """Key of each state, DC and territory name or USPS code -> its USPS code."""
    table = {place_key(s.abbr): s.abbr for s in us.states.STATES_AND_TERRITORIES}
    table |= {place_key(s.name): s.abbr for s in us.states.STATES_AND_TERRITORIES}
    return table | _STATE_ALIASES


def state_code(text: str) -> str | None:
    """USPS code of a state, DC or territory given by code or name ("tx", "Texas", "D.C.")."""
    return _states().get(place_key(text))


@cache
def state_names() -> dict[str, str]:
    """USPS code -> name, for every state, DC and territory."""
    return {s.abbr: s.name for s in us.states.STATES_AND_TERRITORIES}


def closest_states(text: str, limit: int = 3) -> list[str]:
    """USPS codes of the states whose name is nearest to ``text`` (for a "did you mean")."""
    codes = {place_key(name): code for code, name in state_names().items()}
    matches = process.extract(
        place_key(text), list(codes), scorer=fuzz.ratio, score_cutoff=70, limit=limit
    )
    return [codes[match] for match, _, _ in matches]
