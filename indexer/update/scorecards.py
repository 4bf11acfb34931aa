"""The directories index's scorecards (core.scorecards) as updates keep them: read, written, and
recounted from what the search index holds after an update of another source (an NPPES weekly
file deactivates an NPI, changes a name or an address: the checks of every directory listing
that provider follow). The counting is indexer.assembly.scorecard's, the one rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from elasticsearch import AsyncElasticsearch, NotFoundError
from elasticsearch.helpers import async_scan

from core.changes import now
from core.index_contract import SEARCH_FIELDS as F
from core.index_contract import IndexKind
from core.scorecards import DirectoryDoc
from core.search_fields import locations_of, provider_of
from indexer.assembly.scorecard import ListingTally, facts_of, scorecard


async def stored_scorecard(es: AsyncElasticsearch, index: str, source: str) -> DirectoryDoc | None:
    """The scorecard of the directory whose source is ``source``, as written (real time)."""
    try:
        found = await es.get(index=index, id=source, realtime=True)
    except NotFoundError:
        return None
    return cast(DirectoryDoc, found["_source"])


async def write_scorecard(
    es: AsyncElasticsearch, index: str, card: DirectoryDoc, stored: DirectoryDoc | None
) -> bool:
    """``card`` written unless it is what is stored; whether it was written."""
    if card == stored:
        return False
    await es.index(index=index, id=card["source"], document=cast(Any, card))
    return True


async def _every_source(es: AsyncElasticsearch, index: str) -> list[str]:
    query = {"query": {"match_all": {}}, "_source": False}
    return [hit["_id"] async for hit in async_scan(es, index=index, query=query)]


async def refresh_scorecards(
    es: AsyncElasticsearch,
    indices: Mapping[IndexKind, str],
    sources: Iterable[str] | None = None,
    at: str | None = None,
) -> list[DirectoryDoc]:
    """The provider and listing checks of the directories of ``sources`` (``plan-net:<name>``;
    None: every loaded one) recounted from the search index's stored documents, their own
    facts kept (what they hold, how fresh, their Location and export checks); ``at``: the
    update's instant (default now), their ``updatedAt`` when a count changed. Call it once the
    update's documents are visible (after ``visible_together``): a scan reads what is
    refreshed. A source with no scorecard is passed over. Returns the scorecards written."""
    directories = indices["directories"]
    wanted = await _every_source(es, directories) if sources is None else list(sources)
    written: list[DirectoryDoc] = []
    for source in dict.fromkeys(wanted):
        stored = await stored_scorecard(es, directories, source)
        if stored is None:
            continue
        tally = ListingTally(source)
        query = {"query": {"term": {F.sources: source}}, "_source": [F.provider, F.locations]}
        async for hit in async_scan(es, index=indices["search"], query=query, size=2000):
            tally.add(provider_of(hit["_source"]), locations_of(hit["_source"]))
        card = scorecard(stored["name"], facts_of(stored), tally, at or now(), stored)
        if await write_scorecard(es, directories, card, stored):
            written.append(card)
    return written
