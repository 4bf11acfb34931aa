"""The directory's publication record: which load, update or rollback last finished, and when.
The indexer writes it at the end of each (``indexer.publication``); the FHIR API's Bulk Publish
manifest (``$bulk-publish``) is regenerated when it changes, its files named by the record's key."""

from __future__ import annotations

from typing import Final, NotRequired, TypedDict

PUBLICATION_ID: Final = "current"  # the publication index's one document


class Publication(TypedDict):
    version: str  # the index version served (core.index_contract.VERSION_FORMAT)
    job: str  # "load", "update" or "rollback"
    finishedAt: str  # a FHIR instant (core.changes.instant)
    # How far the change feed goes: the last record committed (core.change_log; 0: none yet).
    changesThrough: NotRequired[int]
    changesPrunedThrough: NotRequired[int]  # the last record removed as too old (0: none)


def publication_key(record: Publication) -> str:
    """What names a publication's files: another after every load and update."""
    return f"{record['version']}-{record['finishedAt'].replace(':', '').replace('-', '')}"
