"""Plans an update wrote participation rows for: flagged as having a network in the directory
(``core.plan_offers.NETWORK_ROWS_FIELD``), as a load flags them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from core.changes import CHANGED_AT
from core.index_contract import plan_doc_id
from core.plan_offers import NETWORK_ROWS_FIELD
from indexer.update import indexed as current
from indexer.update.options import UpdateError
from indexer.write.bulk import Action, Origin, action_lines, bulk_index, chunked


async def flag_networks(
    es: Any, index: str, plans: Iterable[tuple[int, str]], source: str, changed_at: str
) -> None:
    """Flag the plans of these (year, plan key) that exist and are not flagged yet (a change of
    the InsurancePlan: stamped with the update's instant)."""
    flagged = orjson.dumps({"doc": {NETWORK_ROWS_FIELD: True, CHANGED_AT: changed_at}})
    ids = sorted({plan_doc_id(year, key) for year, key in plans})
    for batch in chunked(ids, 1000):
        found = await current.documents(es, index, batch, [NETWORK_ROWS_FIELD])
        actions: list[Action] = [
            (action_lines("update", index)(doc_id), flagged, Origin(source, 0, ""))
            for doc_id, doc in found.items()
            if not doc.get(NETWORK_ROWS_FIELD)
        ]
        result = await bulk_index(es, actions)
        if result.failed:
            raise UpdateError(
                f"rows written, but {len(result.failed)} plans not flagged as having a network"
                f" ({result.failed[0].reason}); run the update again"
            )
