"""The directories index read: every loaded directory's scorecard, or one by name."""

from __future__ import annotations

from typing import cast

from elasticsearch import AsyncElasticsearch, NotFoundError

from core.index_contract import DIRECTORY_FIELDS, IndexNames
from core.scorecards import DirectoryDoc, directory_source
from service.storage import document_missing, elasticsearch_errors, search_whole

DIRECTORIES_INDEX = "the directories index"
# Payers' directories loaded beside one another: a few, tens at most; more are not listed.
MAX_DIRECTORIES = 1000


async def read_directories(es: AsyncElasticsearch, names: IndexNames) -> list[DirectoryDoc]:
    """Every loaded directory's scorecard, by name."""
    body = {
        "query": {"match_all": {}},
        "sort": [{DIRECTORY_FIELDS.name: "asc"}],
        "size": MAX_DIRECTORIES,
    }
    answer = await search_whole(es, names.alias("directories"), body, DIRECTORIES_INDEX)
    return [cast(DirectoryDoc, hit["_source"]) for hit in answer["hits"]["hits"]]


async def read_directory(
    es: AsyncElasticsearch, names: IndexNames, name: str
) -> DirectoryDoc | None:
    """The scorecard of the directory loaded as ``name``, or None."""
    with elasticsearch_errors(DIRECTORIES_INDEX):
        try:
            source = await es.get_source(
                index=names.alias("directories"), id=directory_source(name), realtime=False
            )
        except NotFoundError as error:
            if not document_missing(error):
                raise
            return None
    return cast(DirectoryDoc, source.body)
