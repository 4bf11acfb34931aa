"""What every store shares: Elasticsearch failures turned into the service's own errors.

Only store modules use this; nothing here knows about HTTP.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final, Literal

from elasticsearch import (
    ApiError,
    AsyncElasticsearch,
    ConnectionError,
    ConnectionTimeout,
    NotFoundError,
    TransportError,
)

from core.index_contract import IndexNames
from service.errors import BackendUnavailable, IndexNotLoaded

OVERLOADED = frozenset({429, 502, 503, 504})
# Elasticsearch answers 200 with some shards missing when every copy of a shard failed (a node
# lost while its only copy was being moved, say): the answer would silently lack providers. A
# search that cannot read every shard is an error instead, retried on another node or a 503.
ALLOW_PARTIAL_RESULTS: Final = False
# The same, as an msearch header line carries it.
WHOLE_ANSWERS_ONLY: Final = {"allow_partial_search_results": ALLOW_PARTIAL_RESULTS}


def missing_index(error: NotFoundError) -> bool:
    """A 404 about the index itself, not about a document that is not there."""
    body = error.body if isinstance(error.body, dict) else {}
    reason = body.get("error")
    kind = reason.get("type") if isinstance(reason, dict) else None
    return kind == "index_not_found_exception" or (bool(reason) and body.get("found") is None)


@contextmanager
def elasticsearch_errors(what: str) -> Iterator[None]:
    """Run Elasticsearch calls about ``what`` (e.g. "the search index"), raising the service's
    errors: unreachable or overloaded -> BackendUnavailable, alias missing -> IndexNotLoaded.
    Any other Elasticsearch error is unexpected and propagates as it is."""
    try:
        yield
    except (ConnectionError, ConnectionTimeout) as error:
        raise BackendUnavailable("Elasticsearch is unreachable") from error
    except NotFoundError as error:
        if missing_index(error):
            raise IndexNotLoaded(f"{what} is not loaded") from error
        raise
    except ApiError as error:
        if error.status_code in OVERLOADED:
            raise BackendUnavailable("Elasticsearch is overloaded") from error
        raise


async def aliases_exist(es: AsyncElasticsearch, names: IndexNames) -> bool:
    """Every alias of the contract exists; BackendUnavailable when Elasticsearch cannot say."""
    try:
        return bool(await es.indices.exists_alias(name=",".join(names.all_aliases())))
    except (ApiError, TransportError) as error:  # unreachable, overloaded or failing alike
        raise BackendUnavailable("Elasticsearch answered with an error") from error


Health = Literal["green", "yellow", "red"]


async def served_health(es: AsyncElasticsearch, names: IndexNames) -> Health:
    """The health of the served indices (not of the whole cluster, which may hold others), as the
    node answering knows it: ``local`` so that a master election does not stall the probe while
    searches, which need no master, go on. BackendUnavailable when Elasticsearch cannot say."""
    try:
        response = await es.cluster.health(index=",".join(names.all_aliases()), local=True)
    except (ApiError, TransportError) as error:
        raise BackendUnavailable("Elasticsearch answered with an error") from error
    status: Health = response["status"]
    return status
