"""Versioned indices behind aliases: create, finish, swap atomically, roll back, prune.

Every load writes one new version of every index kind; the service only ever sees aliases, and one
``update_aliases`` call moves all of them, so readers never see a mix of versions or no index.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from elasticsearch import AsyncElasticsearch, NotFoundError

from core.index_contract import INDEX_KINDS, MAPPINGS, IndexKind, IndexNames, index_settings

LOADING_SETTINGS = {"refresh_interval": "-1", "number_of_replicas": 0}


def new_version() -> str:
    return datetime.now(UTC).strftime("%Y%m%dt%H%M%S%f")


@dataclass(frozen=True)
class AliasState:
    alias: str
    index: str | None
    documents: int
    version: str | None


async def create_version(
    es: AsyncElasticsearch, names: IndexNames, version: str, shards: int
) -> dict[IndexKind, str]:
    """Empty indices of every kind for ``version``, tuned for bulk loading."""
    created: dict[IndexKind, str] = {}
    try:
        for kind in INDEX_KINDS:
            index = names.versioned(kind, version)
            settings = {**index_settings(shards=shards, replicas=0), **LOADING_SETTINGS}
            await es.indices.create(index=index, settings=settings, mappings=MAPPINGS[kind])
            created[kind] = index
    except BaseException:
        await delete_indices(es, list(created.values()))
        raise
    return created


async def finish_version(es: AsyncElasticsearch, indices: list[str], replicas: int) -> None:
    """Restore normal refresh and replicas, and make everything searchable."""
    await es.indices.put_settings(
        index=",".join(indices),
        settings={"refresh_interval": None, "number_of_replicas": replicas},
    )
    await es.indices.refresh(index=",".join(indices))


async def count_documents(es: AsyncElasticsearch, indices: dict[IndexKind, str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for kind, index in indices.items():
        response = await es.count(index=index)
        counts[kind] = int(response["count"])
    return counts


async def swap_aliases(es: AsyncElasticsearch, names: IndexNames, version: str) -> None:
    """Point every alias at ``version`` in one atomic request."""
    actions: list[dict[str, Any]] = []
    for kind in INDEX_KINDS:
        alias = names.alias(kind)
        actions.append({"remove": {"index": names.pattern(kind), "alias": alias}})
        actions.append({"add": {"index": names.versioned(kind, version), "alias": alias}})
    await es.indices.update_aliases(actions=actions)


async def delete_indices(es: AsyncElasticsearch, indices: list[str]) -> None:
    if indices:
        await es.indices.delete(index=",".join(indices), ignore_unavailable=True)


async def list_versions(es: AsyncElasticsearch, names: IndexNames) -> list[str]:
    """Versions that have a complete set of indices, oldest first."""
    per_kind: list[set[str]] = []
    for kind in INDEX_KINDS:
        prefix = names.versioned(kind, "")
        found = await es.indices.get(index=names.pattern(kind), allow_no_indices=True)
        per_kind.append({index.removeprefix(prefix) for index in found})
    return sorted(set.intersection(*per_kind)) if per_kind else []


async def current_version(es: AsyncElasticsearch, names: IndexNames) -> str | None:
    try:
        found = await es.indices.get_alias(name=names.alias("search"))
    except NotFoundError:
        return None
    prefix = names.versioned("search", "")
    return next((index.removeprefix(prefix) for index in found), None)


async def prune(es: AsyncElasticsearch, names: IndexNames, keep: int = 2) -> list[str]:
    """Delete all but the newest ``keep`` versions, never the one being served."""
    versions = await list_versions(es, names)
    serving = await current_version(es, names)
    doomed = [v for v in versions[:-keep] if v != serving] if keep else []
    indices = [names.versioned(kind, v) for v in doomed for kind in INDEX_KINDS]
    await delete_indices(es, indices)
    return doomed


async def rollback(es: AsyncElasticsearch, names: IndexNames) -> str:
    """Swap every alias back to the version before the one being served."""
    versions = await list_versions(es, names)
    serving = await current_version(es, names)
    older = [v for v in versions if serving is None or v < serving]
    if not older:
        raise LookupError("no previous version to roll back to")
    await swap_aliases(es, names, older[-1])
    return older[-1]


async def alias_states(es: AsyncElasticsearch, names: IndexNames) -> list[AliasState]:
    states: list[AliasState] = []
    for kind in INDEX_KINDS:
        alias = names.alias(kind)
        try:
            found = await es.indices.get_alias(name=alias)
        except NotFoundError:
            states.append(AliasState(alias, None, 0, None))
            continue
        index = next(iter(found))
        count = int((await es.count(index=index))["count"])
        states.append(
            AliasState(alias, index, count, index.removeprefix(names.versioned(kind, "")))
        )
    return states
