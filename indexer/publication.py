"""The end-of-job hook of ``load``, every ``update`` and ``rollback``: the publication record
(core.publication) says which version a finished job left served, and when it finished."""

from __future__ import annotations

from elasticsearch import AsyncElasticsearch

from core import changes
from core.index_contract import IndexNames
from core.publication import PUBLICATION_ID, Publication


async def publish(es: AsyncElasticsearch, names: IndexNames, version: str, job: str) -> None:
    record = Publication(version=version, job=job, finishedAt=changes.now())
    await es.index(index=names.publication(), id=PUBLICATION_ID, document=record, refresh=True)
