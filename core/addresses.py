"""When two sources give the same practice address: the street number and street, spelled as the
USPS spells them (Publication 28's suffixes and directionals), in the same ZIP5. A suite, a floor
or a building does not make another address, and neither does the city (the ZIP names it)."""

from __future__ import annotations

import re
from functools import lru_cache

_NOT_WORD = re.compile(r"[^A-Z0-9 ]+")
# A secondary unit designator: it and what follows it are the unit, not the address.
_UNITS = frozenset(
    ("STE", "SUITE", "UNIT", "APT", "APARTMENT", "RM", "ROOM", "FL", "FLOOR", "FLR", "BLDG",
     "BUILDING", "DEPT", "SPC", "OFC", "OFFICE", "LOWR", "UPPR", "TRLR", "HNGR", "PIER", "SLIP",
     "LOT")
)  # fmt: skip
_SPELLINGS = {
    "STREET": "ST", "STR": "ST", "AVENUE": "AVE", "AV": "AVE", "AVN": "AVE", "ROAD": "RD",
    "DRIVE": "DR", "DRV": "DR", "BOULEVARD": "BLVD", "BOUL": "BLVD", "LANE": "LN",
    "COURT": "CT", "PLACE": "PL", "PARKWAY": "PKWY", "PKY": "PKWY", "HIGHWAY": "HWY",
    "CIRCLE": "CIR", "TERRACE": "TER", "SQUARE": "SQ", "TRAIL": "TRL", "PLAZA": "PLZ",
    "CENTER": "CTR", "CENTRE": "CTR", "TURNPIKE": "TPKE", "EXPRESSWAY": "EXPY",
    "FREEWAY": "FWY", "ROUTE": "RTE", "MOUNT": "MT", "FORT": "FT", "POINT": "PT",
    "CROSSING": "XING", "HEIGHTS": "HTS", "JUNCTION": "JCT", "MEMORIAL": "MEM",
    "NORTH": "N", "SOUTH": "S", "EAST": "E", "WEST": "W", "NORTHEAST": "NE",
    "NORTHWEST": "NW", "SOUTHEAST": "SE", "SOUTHWEST": "SW",
}  # fmt: skip
_PO_BOX = re.compile(r"\b(P\s*O|POST\s+OFFICE|POB)\s*(BOX|BX)?\s*\d|\bBOX\s+\d", re.IGNORECASE)


@lru_cache(maxsize=65_536)
def street_key(line1: str) -> str:
    """Line 1 without its unit, each word as the USPS abbreviates it."""
    words: list[str] = []
    for word in _NOT_WORD.sub(" ", line1.upper().replace("#", " STE ")).split():
        if word in _UNITS and words:
            break
        words.append(_SPELLINGS.get(word, word))
    return " ".join(words)


def address_key(line1: str | None, postal_code: str | None) -> str:
    """The key two equivalent addresses share (line 2, the city and the state left out)."""
    return f"{street_key(line1 or '')}|{(postal_code or '')[:5]}"


@lru_cache(maxsize=65_536)
def is_po_box(line1: str | None) -> bool:
    """A post-office box, which can receive mail but is no place to see a patient."""
    return bool(line1) and _PO_BOX.search(line1 or "") is not None
