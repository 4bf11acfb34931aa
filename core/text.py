"""The one tokenisation rule for searchable text, used by the indexer and the service alike.

The indexer writes every analysed search field through ``indexed_form`` (``normalize``'s
tokens joined by single spaces, in their own case, which the mapping lower-cases), and the
service reads query text through ``normalize`` and ``tokens``; the index then holds exactly
these tokens on both sides. Core analysis has no asciifolding or
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
    return _words(fold(text).lower())


@lru_cache(maxsize=65536)
def indexed_form(text: str) -> str:
    """``normalize(text)`` as a search document holds it: the same words, in the case ``text``
    has (ASCII), which the mapping's lower-casing turns into normalize's. Beside the provider's
    own spelling in the stored source, the compression shares them ("SMITH" twice, not "SMITH"
    and "smith"). Other text is lower-cased here: Python's and Lucene's lower-casing differ
    beyond ASCII."""
    folded = fold(text)
    return _words(folded if folded.isascii() else folded.lower())


def _words(text: str) -> str:
    # Each rewrite only where its characters occur: most values have no apostrophe or dot,
    # and plain letters, digits and spaces need no rewriting at all. None depends on case.
    if text.isascii() and text.replace(" ", "").isalnum():
        return " ".join(text.split())
    if any(mark in text for mark in _APOSTROPHE_MARKS):
        text = _APOSTROPHES.sub("", text)
    if "." in text:
        text = _INITIALISM.sub(lambda match: match.group(0).replace(".", ""), text)
    return " ".join(_SEPARATORS.sub(" ", text).split())


def tokens(text: str) -> list[str]:
    """The words of ``text`` as the index holds them."""
    return normalize(text).split()
