"""The end-of-job hook of ``load``, every ``update`` and ``rollback``: the publication record
(core.publication) says which version a finished job left served, and when it finished."""

from __future__ import annotations

from collections.abc import Mapping

from elasticsearch import AsyncElasticsearch

from core import changes
from core.index_contract import IndexNames
from core.publication import PUBLICATION_ID, Publication
from indexer.change_log import published_marks


async def publish(
    es: AsyncElasticsearch,
    names: IndexNames,
    version: str,
    job: str,
    marks: Mapping[str, int] | None = None,
) -> None:
    """``marks``: how far the change feed goes now (indexer.change_log), else as it went."""
    if marks is None:
        through, pruned = await published_marks(es, names)
        marks = {"changesThrough": through, "changesPrunedThrough": pruned}
    record = Publication(version=version, job=job, finishedAt=changes.now())
    record["changesThrough"] = marks["changesThrough"]
    record["changesPrunedThrough"] = marks["changesPrunedThrough"]
    await es.index(index=names.publication(), id=PUBLICATION_ID, document=record, refresh=True)
