"""An index's field names, from its stored document's type (pure).

``FieldNames`` reads the names off the TypedDicts an index stores, so ``SEARCH_FIELDS.npi`` is
``"npi"`` and a name no document has is an AttributeError: a typo in a query fails the first
test that builds it. ``undeclared`` checks a mapping against them (core.index_contract runs it
at import): a document field neither mapped nor declared stored-only, or a mapped field no
document has, is a defect, since a ``dynamic: false`` index would silently not index it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def _keys(shape: type) -> frozenset[str]:
    required: frozenset[str] = getattr(shape, "__required_keys__", frozenset())
    optional: frozenset[str] = getattr(shape, "__optional_keys__", frozenset())
    return required | optional


class FieldNames:
    """The fields of an index's documents (``shapes``), and fields only the index has
    (``index_only``: ``copy_to`` targets), each as an attribute holding its name."""

    def __init__(self, index: str, *shapes: type, index_only: Iterable[str] = ()) -> None:
        self._index = index
        self._stored = frozenset().union(*(_keys(shape) for shape in shapes))
        self._names = self._stored | frozenset(index_only)

    def __getattr__(self, name: str) -> str:
        if name.startswith("_") or name not in self._names:
            raise AttributeError(f"the {self._index} index has no field {name!r}")
        return name

    def __contains__(self, name: object) -> bool:
        return name in self._names

    @property
    def stored(self) -> frozenset[str]:
        """The fields the documents hold (not the index-only ones)."""
        return self._stored

    @property
    def all(self) -> frozenset[str]:
        return self._names


def undeclared(
    mapping: Mapping[str, Any], fields: FieldNames, stored_only: Iterable[str] = ()
) -> list[str]:
    """What is wrong between an index's mapping and its documents' fields."""
    mapped = set(mapping.get("properties", {}))
    declared = mapped | set(stored_only)
    unmapped = sorted(fields.stored - declared)
    unknown = sorted(mapped - fields.all)
    return [f"{name}: stored but neither mapped nor declared stored-only" for name in unmapped] + [
        f"{name}: mapped, but no document has it" for name in unknown
    ]
