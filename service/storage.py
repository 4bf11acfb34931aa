"""What every store shares: Elasticsearch failures turned into the service's own errors.

Only store modules use this; nothing here knows about HTTP.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

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
