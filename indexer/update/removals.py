"""An update's removal records (core.changes): written for the FHIR resources it removed, and
dropped for those it adds back (a resource present again is a change, not a removal)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import orjson
from elasticsearch import AsyncElasticsearch

from core.published_documents import Removal
from indexer.update.options import UpdateError
from indexer.write.bulk import Action, Origin, bulk_index, delete_action, index_action


async def record_removals(
    es: AsyncElasticsearch,
    index: str,
    removed: Iterable[tuple[str, Removal]],
    added_back: Sequence[str] = (),
) -> int:
    """Write ``removed`` (``(_id, record)``), delete the records of ``added_back`` ids; returns
    how many were written."""
    origin = Origin("removals", 0, "")
    actions: list[Action] = [
        index_action(index, doc_id, orjson.dumps(record), origin) for doc_id, record in removed
    ]
    written = len(actions)
    actions += [delete_action(index, doc_id, origin) for doc_id in added_back]
    result = await bulk_index(es, actions)
    failed = [failure for failure in result.failed if failure.status != 404]
    if failed:
        raise UpdateError(
            f"{len(failed)} removal records could not be written ({failed[0].reason});"
            " run the update again"
        )
    return written
