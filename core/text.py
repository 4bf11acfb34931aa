"""The one tokenisation rule for searchable text, used by the indexer and the service alike.

The indexer writes every analysed search field through ``normalize`` (tokens joined by single
spaces), and the service reads query text through ``tokens``; the mapping's standard analyzer
then finds exactly these tokens on both sides. Core analysis has no asciifolding or
word-delimiter filter (DESIGN 4), so the rule lives here, once:

- accents folded and compatibility forms decomposed ("Peña" -> "pena", "ﬁ" -> "fi");
- the dots of initialisms joined ("O.D., P.A." -> "od pa", "L.L.C." -> "llc"), so the written
  and the plain forms ("OD", "LLC") are the same word;
- apostrophes dropped inside words ("O'Brien" -> "obrien", "children's" -> "childrens");
- everything else that is not a letter or digit separates words (hyphens, "&", slashes, commas).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_APOSTROPHE_MARKS = ("'", "\u2019", "\u02bc", "`")
_APOSTROPHES = re.compile(r"(?<=\w)['\u2019\u02bc`](?=\w)")
# Single letters or digits each followed by a dot, at a word start: "o.d.", "l.l.c", "u.s.a."
_INITIALISM = re.compile(r"(?<![^\W_])(?:[^\W_]\.){2,}|(?<![^\W_])(?:[^\W_]\.)+[^\W_](?![^\W_])")
_SEPARATORS = re.compile(r"[\W_]+")


def fold(text: str) -> str:
    """Accent folding and compatibility normalisation: "Peña" -> "Pena", "ﬁ" -> "fi"."""
    if text.isascii():  # nearly every NPPES value: nothing to fold, and a tenth of the cost
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=65536)  # names repeat a lot across millions of rows
def normalize(text: str) -> str:
    """Searchable form of ``text``: lower-case tokens joined by single spaces."""
    lowered = fold(text).lower()
    # Each rewrite only where its characters occur: most values have no apostrophe or dot,
    # and plain letters, digits and spaces need no rewriting at all.
    if lowered.isascii() and lowered.replace(" ", "").isalnum():
        return " ".join(lowered.split())
    if any(mark in lowered for mark in _APOSTROPHE_MARKS):
        lowered = _APOSTROPHES.sub("", lowered)
    if "." in lowered:
        lowered = _INITIALISM.sub(lambda match: match.group(0).replace(".", ""), lowered)
    return " ".join(_SEPARATORS.sub(" ", lowered).split())


def tokens(text: str) -> list[str]:
    """The words of ``text`` as the index holds them."""
    return normalize(text).split()
