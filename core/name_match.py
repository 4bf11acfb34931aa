"""Whether a payer's name for an NPI is NPPES's name for it, compared as people compare names:
case, accents and punctuation aside, "Bob" is "Robert" (the nicknames package's table), an
initial or a dropped middle name is no difference, a first name may be the middle one someone
goes by, a double surname may be given in part, and an organisation's legal suffix ("LLC",
"Inc") or word order does not matter. One typed letter in a long name is a slip, not another
person."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

from nicknames import NickNamer
from rapidfuzz.distance import Levenshtein
from rapidfuzz.fuzz import token_set_ratio

_LEGAL_WORDS = frozenset(
    ("THE", "INC", "INCORPORATED", "LLC", "LLP", "PLLC", "PC", "PA", "PSC", "LTD", "CORP",
     "CORPORATION", "CO", "COMPANY")
)  # fmt: skip
# Organisation names at or above this token-set similarity (0-100) are the same name: word
# order, a "Center" added or a legal form dropped stay above it, another practice does not.
ORGANIZATION_SIMILARITY = 85


@lru_cache(maxsize=1)
def _nicknames() -> NickNamer:
    return NickNamer()


def _words(name: str | None) -> list[str]:
    if not name:
        return []
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    spaced = "".join(c if c.isalnum() else " " for c in plain.upper().replace("'", ""))
    return spaced.split()


def _close(a: str, b: str) -> bool:
    """Equal, or one letter off in a name of five letters or more."""
    return a == b or (min(len(a), len(b)) >= 5 and Levenshtein.distance(a, b) <= 1)


@lru_cache(maxsize=16_384)
def _same_given(a: str, b: str) -> bool:
    if _close(a, b) or (len(a) == 1 and b.startswith(a)) or (len(b) == 1 and a.startswith(b)):
        return True
    if min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a)):
        return True  # Chris, Christopher
    namer = _nicknames()
    first, second = a.lower(), b.lower()
    canonical_a, canonical_b = namer.canonicals_of(first), namer.canonicals_of(second)
    # One is a nickname or the full form of the other, or both shorten one full name.
    return (
        second in namer.nicknames_of(first) | canonical_a
        or first in namer.nicknames_of(second) | canonical_b
        or not canonical_a.isdisjoint(canonical_b)
    )


def _same_family(listed: Sequence[str], known: Sequence[str]) -> bool:
    if not listed or not known:
        return not listed and not known
    joined_listed, joined_known = "".join(listed), "".join(known)
    if _close(joined_listed, joined_known):
        return True  # "Mac Donald", "MacDonald"
    return set(listed) <= set(known) or set(known) <= set(listed)  # Garcia, Garcia-Lopez


def same_person(
    listed_given: str | None,
    listed_family: str | None,
    given: str | None,
    middle: str | None,
    family: str | None,
    other_names: Iterable[str] = (),
) -> bool:
    """A payer's given and family names against NPPES's (``other_names``: the other names the
    NPPES row gives, "first last" each, a former surname among them)."""
    listed_first = _words(listed_given)[:1]
    listed_last = _words(listed_family)
    known_last = [_words(family), *(_words(name)[-1:] for name in other_names)]
    if not any(_same_family(listed_last, last) for last in known_last):
        return False
    if not listed_first:
        return True  # a family name alone contradicts nothing
    firsts = [*_words(given)[:1], *_words(middle)[:1]]
    return not firsts or any(_same_given(listed_first[0], first) for first in firsts)


def _organization(name: str) -> str:
    words = ["AND" if word == "&" else word for word in _words(name.replace("&", " & "))]
    return " ".join(word for word in words if word not in _LEGAL_WORDS)


def same_organization(listed: str | None, known: Iterable[str | None]) -> bool:
    """A payer's organisation name against NPPES's legal, doing-business-as and other names."""
    if not listed:
        return True
    names = [_organization(name) for name in known if name]
    ours = _organization(listed)
    return not names or any(
        token_set_ratio(ours, name) >= ORGANIZATION_SIMILARITY for name in names
    )
