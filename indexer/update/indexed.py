"""What the live version holds now for a batch of an update: documents by id, read in real
time (an update sees its own writes before they are refreshed), and the coverage rows of NPIs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

import orjson
from elasticsearch import AsyncElasticsearch
from elasticsearch.helpers import async_scan

from core.changes import unstamped
from core.documents import CoverageDoc
from core.index_contract import COVERAGE_FIELDS
from core.network import PeriodKey, period_key
from core.search_fields import without_derived_fields


async def documents(
    es: AsyncElasticsearch, index: str, ids: Sequence[str], fields: Sequence[str] = ()
) -> dict[str, dict[str, Any]]:
    """The sources (only ``fields`` when given) of the documents of ``ids`` that exist, by id."""
    if not ids:
        return {}
    includes = list(fields) or None
    found = await es.mget(index=index, ids=list(ids), realtime=True, source_includes=includes)
    return {doc["_id"]: doc["_source"] for doc in found["docs"] if doc.get("found")}


async def coverage_rows(
    es: AsyncElasticsearch, index: str, npis: Sequence[str]
) -> dict[str, dict[str, CoverageDoc]]:
    """Every coverage row of these NPIs as last refreshed, by NPI, then by document id."""
    rows: dict[str, dict[str, CoverageDoc]] = {}
    if not npis:
        return rows
    query = {"query": {"terms": {COVERAGE_FIELDS.npi: list(npis)}}}
    async for hit in async_scan(es, index=index, query=query, size=5000):
        doc = cast(CoverageDoc, hit["_source"])
        rows.setdefault(doc["npi"], {})[hit["_id"]] = doc
    return rows


def as_indexed(doc: object) -> dict[str, Any]:
    """The document as Elasticsearch returns it, to compare with what is indexed."""
    parsed: dict[str, Any] = orjson.loads(orjson.dumps(doc))
    return parsed


def stored_search(doc: dict[str, Any]) -> dict[str, Any]:
    """A search document as its stored source holds it, without its stamp: what an update
    compares to tell a change."""
    return without_derived_fields(unstamped(doc))


def networks(rows: Iterable[CoverageDoc]) -> list[PeriodKey | None]:
    """What a load keeps of a provider's coverage rows for its search document."""
    return [period_key(row) for row in rows]
