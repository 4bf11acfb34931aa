"""The steps of a directories read: the stored scorecards, listed or one by name."""

from __future__ import annotations

from elasticsearch import AsyncElasticsearch

from core.index_contract import IndexNames
from service.directories.models import DirectoryList, DirectoryScorecard, summary_of
from service.directories.store import read_directories, read_directory
from service.errors import DirectoryNotFound


async def list_directories(es: AsyncElasticsearch, names: IndexNames) -> DirectoryList:
    return {"directories": [summary_of(card) for card in await read_directories(es, names)]}


async def directory_scorecard(
    es: AsyncElasticsearch, names: IndexNames, name: str
) -> DirectoryScorecard:
    card = await read_directory(es, names, name)
    if card is None:
        raise DirectoryNotFound(name)
    return card
