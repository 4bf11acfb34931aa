"""How a term of the vocabulary is keyed (pure): its words as the index holds them, connectors
left out, so "Obstetrics & Gynecology", "shortness of breath" and what people type meet on the
same key. The specialty table, the care concepts and the query reading all key this way."""

from __future__ import annotations

from core.text import tokens

# Words that join others and never decide a match ("Obstetrics and Gynecology").
CONNECTORS = frozenset({"and", "of", "the", "with", "for", "at", "in", "a", "an", "to", "on"})
Key = tuple[str, ...]


def key_of(text: str) -> Key:
    return tuple(t for t in tokens(text) if t not in CONNECTORS)
