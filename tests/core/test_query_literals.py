"""Query modules name index fields through the declarations (``SEARCH_FIELDS.npi``), never as
string literals: a literal is not checked against the documents' types, so a renamed or
misspelt field would silently match nothing in a ``dynamic: false`` index.

The check reads each module's syntax tree and flags a string constant naming a declared field
(of any index: core.index_contract.DECLARED, with object fields' paths) where an Elasticsearch
body names a field: a clause's field key (``{"term": {"npi": ...}}``), ``field`` and ``path``
values, sort entries (``{"npi": "asc"}``), ``fields``, ``sort`` and ``_source`` lists (as keys,
or as keyword arguments of a client call), boosted fields (``"fullName^3"``), and module
constants named ``*_FIELDS`` or ``*_SOURCE``. Other strings equal to a field name (request and
answer shapes, aggregation names, reads of hits) are not query bodies and pass. To check more
modules, add them to ``QUERY_MODULES``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.index_contract import DECLARED, MAPPINGS
from core.index_fields import paths

ROOT = Path(__file__).resolve().parents[2]
# The modules that build Elasticsearch bodies, checked (directories: every module under them).
QUERY_MODULES: tuple[str, ...] = (
    "service/search",
    "service/search_kit",
    "service/coverage",
    "service/plans",
    "service/network_kit",
    "service/fhir",
    "indexer/update",
)

CLAUSES = {"term", "terms", "prefix", "wildcard", "regexp", "fuzzy", "match", "match_phrase"}
CLAUSES |= {"match_phrase_prefix", "range", "geo_distance", "_geo_distance", "gauss"}
FIELD_VALUES = {"field", "path"}
FIELD_LISTS = {"fields", "sort", "_source", "includes", "excludes", "docvalue_fields"}
FIELD_LISTS |= {"stored_fields", "source_includes", "source_excludes"}
FIELD_LISTS |= {"_source_includes", "_source_excludes"}
DECLARED_NAMES = frozenset(
    {name for fields in DECLARED.values() for name in fields.all}
    | {path for mapping in MAPPINGS.values() for path in paths(mapping)}
)


def _field(node: ast.AST) -> str | None:
    """The declared field a constant names (``"fullName^3"`` names ``fullName``), if any."""
    if isinstance(node, ast.JoinedStr) and node.values:  # f"networks.{...}"
        node = node.values[0]
        if isinstance(node, ast.Constant) and str(node.value).endswith("."):
            return _field(ast.Constant(str(node.value)[:-1]))
        return None
    if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
        return None
    name = node.value.split("^")[0]
    return name if name in DECLARED_NAMES else None


def _listed(node: ast.AST) -> Iterator[ast.AST]:
    """The elements of a field list literal; a sort entry's keys too."""
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        for element in node.elts:
            if isinstance(element, ast.Dict):
                yield from (key for key in element.keys if key is not None)
            else:
                yield element
    else:
        yield node


def _sort_order(value: ast.AST) -> bool:
    """A sort entry's value: ``"asc"``, ``"desc"``, or options with an ``order``."""
    if isinstance(value, ast.Constant):
        return value.value in ("asc", "desc")
    return isinstance(value, ast.Dict) and any(
        isinstance(key, ast.Constant) and key.value == "order" for key in value.keys
    )


def _named(key: ast.Constant, value: ast.AST) -> Iterator[ast.AST]:
    if _sort_order(value):  # {"npi": "asc"}, wherever the sort list is built
        yield key
    if key.value in CLAUSES and isinstance(value, ast.Dict):
        yield from (inner for inner in value.keys if inner is not None)
    elif key.value in FIELD_VALUES or key.value in FIELD_LISTS:
        yield from _listed(value)


def field_literals(source: str) -> Iterator[tuple[int, str]]:
    """(line, field) of each literal field name in a query position of this module's code."""
    for node in ast.walk(ast.parse(source)):
        candidates: list[ast.AST] = []
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    candidates += _named(key, value)
        elif isinstance(node, ast.keyword) and node.arg is not None:
            candidates += _named(ast.Constant(node.arg), node.value)
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if any(name.endswith(("_FIELDS", "_SOURCE")) for name in names):
                candidates += _listed(node.value)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "^" in node.value:
            candidates.append(node)  # a boosted field: "fullName^3"
        for candidate in candidates:
            field = _field(candidate)
            if field is not None:
                yield getattr(candidate, "lineno", 0), field


def query_module_files() -> list[Path]:
    found: list[Path] = []
    for entry in QUERY_MODULES:
        path = ROOT / entry
        found += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return found


def test_query_modules_name_index_fields_through_the_declarations() -> None:
    files = query_module_files()
    assert len(files) > 10  # the list names real modules
    literals = [
        f"{file.relative_to(ROOT)}:{line}: {field!r}"
        for file in files
        for line, field in field_literals(file.read_text())
    ]
    assert literals == []


@pytest.mark.parametrize(
    "code",
    [
        'Q = {"term": {"entityType": "individual"}}',
        'Q = {"bool": {"filter": [{"range": {"networks.period": {"gte": day}}}]}}',
        'Q = {"nested": {"path": "networks", "query": q}}',
        'A = {"terms": {"field": "specialtyNames", "size": 20}}',
        'B = {"sort": [{"_score": "desc"}, {F.npi: "asc"}], "_source": ["provider"]}',
        'def order():\n    return [{"_score": "desc"}, {"npi": "asc"}]',
        'S = {"changedAt": {"order": "asc"}}',
        'TEXT = ["fullName^3", F.names]',
        'ANSWER_SOURCE = ("provider", F.locations)',
        'r = es.mget(index=i, ids=ids, source_includes=["locations"])',
        'Q = {"exists": {"field": f"networks.{part}"}}',
        'Q = {"term": {"resourceType": kind}}',  # the plans index's field
    ],
)
def test_a_literal_field_name_in_a_query_is_found(code: str) -> None:
    assert list(field_literals(code))


@pytest.mark.parametrize(
    "code",
    [
        'Q = {"term": {F.entityType: "individual"}}',
        'facets = {"gender": buckets("gender"), "language": buckets("language")}',
        'AGGS = {"specialty": {"terms": {"field": F.specialtyNames}}}',
        'provider = hit["_source"]["provider"]',
        'EXTRA = {"bidId", "payerPlanId"}',  # a request's fields
        'Q = {"terms": {F.languages: listed}}',  # "terms" the clause, not the plans field
    ],
)
def test_what_is_no_query_field_passes(code: str) -> None:
    assert list(field_literals(code)) == []
