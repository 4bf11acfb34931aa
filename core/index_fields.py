"""How an index is declared: its documents' TypedDicts say how each field is indexed (pure).

A field is indexed when its type carries an ``Indexed`` (``Annotated[str, KEYWORD]``): its
Elasticsearch mapping. A field without one is stored in the source, never indexed (the indices
are ``dynamic: false``). An object or nested field's properties are its own TypedDict's indexed
fields (``Indexed.object``). ``FieldNames`` reads an index's documents' types once and gives
both its mapping (``mapping()``) and its field names as attributes: ``SEARCH_FIELDS.npi`` is
``"npi"`` and a name no document has is an AttributeError, so a typo in a query fails the first
test that builds it. Fields only the index has (``copy_to`` targets) are declared the same way,
in a TypedDict of their own (``index_only``), and hold what their sources copy into them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import UnionType
from typing import Annotated, Any, NotRequired, Required, Union, get_args, get_origin

from typing_extensions import get_type_hints, is_typeddict


class Indexed:
    """A field's mapping. ``properties``: an object (or nested) field, whose properties are
    the indexed fields of its type's TypedDict."""

    __slots__ = ("_mapping", "properties")

    def __init__(self, *, properties: bool = False, **mapping: Any) -> None:
        self._mapping = mapping
        self.properties = properties

    @classmethod
    def object(cls, **mapping: Any) -> Indexed:
        return cls(properties=True, **mapping)

    @property
    def mapping(self) -> dict[str, Any]:
        return {key: _plain(value) for key, value in self._mapping.items()}

    def but(self, **changes: Any) -> Indexed:
        """This mapping with more (or other) parameters, in that order after its own."""
        return Indexed(properties=self.properties, **{**self._mapping, **changes})

    def __repr__(self) -> str:
        return f"Indexed({self._mapping!r})"


def _plain(value: Any) -> Any:
    if isinstance(value, Indexed):
        return value.mapping
    if isinstance(value, dict):
        return {key: _plain(inner) for key, inner in value.items()}
    return value


# The mappings the indices' fields share.
KEYWORD = Indexed(type="keyword")
# Matched, never sorted or aggregated on: no doc values to build at load time.
FILTER_KEYWORD = Indexed(type="keyword", doc_values=False)
# Words as core.text.indexed_form writes them: lower-cased here, so the service's normalised
# (lower-case) values match them.
WORDS_KEYWORD = FILTER_KEYWORD.but(normalizer="lowercase_keyword")
TEXT = Indexed(type="text", analyzer="standard")
# Text fields hold core.text.normalize()d text. A name's length says nothing about how well it
# matches, so names carry no norms: same-name providers score alike and distance orders them.
NAME_TEXT = TEXT.but(norms=False)
# Kept whole in the source, never parsed: what an answer is read back from.
UNPARSED = Indexed(type="object", enabled=False)
INTEGER = Indexed(type="integer")
LONG = Indexed(type="long")
FLOAT = Indexed(type="float")
BOOLEAN = Indexed(type="boolean")
# Bytes as base64, kept in the source only (no doc values, never searched).
BINARY = Indexed(type="binary")
DATE = Indexed(type="date")
# A FHIR instant, stored to the second as it is read back; ES parses and compares it exactly.
INSTANT = Indexed(type="date", format="strict_date_time_no_millis")


def _unwrapped(hint: Any) -> tuple[Any, Indexed | None]:
    """A field's type without NotRequired, Annotated, None and list, and its Indexed."""
    indexed = None
    while True:
        origin = get_origin(hint)
        if origin in (Required, NotRequired, list):
            hint = get_args(hint)[0]
        elif origin is Annotated:
            hint, *extras = get_args(hint)
            found = [extra for extra in extras if isinstance(extra, Indexed)]
            indexed = found[-1] if found else indexed
        elif origin in (Union, UnionType):
            kinds = [arg for arg in get_args(hint) if arg is not type(None)]
            hint = kinds[0] if len(kinds) == 1 else hint
            if len(kinds) != 1:
                return hint, indexed
        else:
            return hint, indexed


def _fields(shape: type) -> Iterator[tuple[str, Any, Indexed | None]]:
    for name, hint in get_type_hints(shape, include_extras=True).items():
        inner, indexed = _unwrapped(hint)
        yield name, inner, indexed


def _properties(shapes: tuple[type, ...], where: str) -> dict[str, Any]:
    """The mapping properties of the fields these shapes index; one field, one mapping."""
    found: dict[str, Any] = {}
    seen: dict[str, Indexed | None] = {}
    for shape in shapes:
        for name, inner, indexed in _fields(shape):
            if name in seen and seen[name] is not indexed:
                raise TypeError(f"{where}{name}: declared differently by two documents")
            seen[name] = indexed
            if indexed is None:
                continue
            spec = indexed.mapping
            if indexed.properties:
                if not is_typeddict(inner):
                    raise TypeError(f"{where}{name}: an object field needs a TypedDict")
                spec["properties"] = _properties((inner,), f"{where}{name}.")
            found[name] = spec
    return found


class FieldNames:
    """An index's declaration: the fields of its documents (``shapes``) and those only the index
    has (``index_only``), each an attribute holding its name (``prefix`` first), and the mapping
    they make. ``indexed=False``: an index read by id only, nothing of it parsed."""

    def __init__(
        self,
        index: str,
        *shapes: type,
        index_only: type | None = None,
        indexed: bool = True,
        prefix: str = "",
    ) -> None:
        self._index, self._prefix, self._indexed = index, prefix, indexed
        self._shapes = shapes
        self._only = (index_only,) if index_only is not None else ()
        self._stored = frozenset(name for shape in shapes for name, _, _ in _fields(shape))
        only = frozenset(name for shape in self._only for name, _, _ in _fields(shape))
        self._names = self._stored | only
        self._properties = _properties((*shapes, *self._only), "") if indexed else {}
        if not indexed and self._properties:
            raise TypeError(f"{index}: an index read by id only indexes no field")
        self._check_copies()

    def _check_copies(self) -> None:
        only = self._names - self._stored
        targets = {
            target
            for spec in self._properties.values()
            for target in _listed(spec.get("copy_to", []))
        }
        if targets - only or only - targets:
            wrong = sorted((targets - only) | (only - targets))
            raise TypeError(f"{self._index}: copy_to targets and index-only fields differ: {wrong}")

    def __getattr__(self, name: str) -> str:
        if name.startswith("_") or name not in self._names:
            raise AttributeError(f"the {self._index} index has no field {self._prefix}{name!r}")
        return self._prefix + name

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def inside(self, name: str) -> FieldNames:
        """An object field's own fields, named by their paths (``networks.key``)."""
        shape = next((inner for s in self._shapes for n, inner, _ in _fields(s) if n == name), None)
        if shape is None or not is_typeddict(shape):
            raise AttributeError(f"the {self._index} index has no object field {name!r}")
        return FieldNames(self._index, shape, prefix=f"{self._prefix}{name}.")

    @property
    def stored(self) -> frozenset[str]:
        """The fields the documents hold (not the index-only ones)."""
        return self._stored

    @property
    def all(self) -> frozenset[str]:
        return self._names

    @property
    def indexed(self) -> frozenset[str]:
        """The fields the mapping parses (not those kept whole: ``UNPARSED``)."""
        return frozenset(
            name for name, spec in self._properties.items() if spec.get("enabled", True)
        )

    @property
    def stored_only(self) -> frozenset[str]:
        """The fields kept in the source and never parsed: no mapping, or ``UNPARSED``."""
        return self._stored - self.indexed

    def mapping(self) -> dict[str, Any]:
        """The index's mapping, made from the declarations (a fresh copy each call)."""
        if not self._indexed:
            return {"enabled": False}
        return {"dynamic": False, "properties": _plain(self._properties)}


def _listed(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def field_names(shape: type) -> list[str]:
    """A document type's field names, in its order: what a read of that shape asks for."""
    return [name for name, _, _ in _fields(shape)]


def paths(mapping: Mapping[str, Any], prefix: str = "") -> set[str]:
    """Every path a mapping declares: properties, their sub-fields and inner properties."""
    found: set[str] = set()
    for name, spec in mapping.get("properties", {}).items():
        path = prefix + name
        found.add(path)
        found |= {f"{path}.{sub}" for sub in spec.get("fields", {})}
        found |= paths(spec, path + ".")
    return found
