"""What every store shares: Elasticsearch failures turned into the service's own errors.

Only store modules use this; nothing here knows about HTTP.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Final, Literal, cast

from elasticsearch import (
    ApiError,
    AsyncElasticsearch,
    ConnectionError,
    ConnectionTimeout,
    NotFoundError,
    TransportError,
)

from core.documents import Json
from core.es_client import OVERLOADED_STATUSES, whole_request_retries
from core.index_contract import IndexNames
from core.publication import PUBLICATION_ID, Publication
from service.errors import BackendUnavailable, IndexNotLoaded

# Elasticsearch answers 200 with some shards missing when every copy of a shard failed (a node
# lost while its only copy was being moved, say): the answer would silently lack providers. A
# search that cannot read every shard is an error instead, retried on another node or a 503.
ALLOW_PARTIAL_RESULTS: Final = False
# The same, as an msearch header line carries it.
WHOLE_ANSWERS_ONLY: Final = {"allow_partial_search_results": ALLOW_PARTIAL_RESULTS}

log = logging.getLogger(__name__)


class UnexpectedAnswer(RuntimeError):
    """Elasticsearch refused a request the service built (a 4xx other than a missing index or
    load shedding): a defect of the service, answered as a logged 500."""


def _missing_index(body: object) -> bool:
    """A 404 about the index itself, not about a document that is not there."""
    answer = body if isinstance(body, dict) else {}
    reason = answer.get("error")
    kind = reason.get("type") if isinstance(reason, dict) else None
    if kind == "resource_not_found_exception":  # the _source endpoint's missing document
        return False
    return kind == "index_not_found_exception" or (bool(reason) and answer.get("found") is None)


def failure(status: int, body: object, what: str) -> Exception:
    """The service's error for an Elasticsearch failure about ``what`` (e.g. "the search index"),
    whole request or one item of a multi-search alike: a missing alias -> IndexNotLoaded,
    overloaded or failing (5xx) -> BackendUnavailable, any other refusal -> UnexpectedAnswer."""
    if status == 404 and _missing_index(body):
        return IndexNotLoaded(f"{what} is not loaded")
    if status in OVERLOADED_STATUSES:
        return BackendUnavailable("Elasticsearch is overloaded")
    if status >= 500:
        return BackendUnavailable(f"Elasticsearch could not read {what}")
    return UnexpectedAnswer(f"Elasticsearch refused a request about {what}: {body}")


def document_missing(error: NotFoundError) -> bool:
    """A 404 about a document (it is not there), not about the index."""
    return not _missing_index(error.body)


@contextmanager
def elasticsearch_errors(what: str) -> Iterator[None]:
    """Run Elasticsearch calls about ``what``, raising the service's errors (``failure``);
    unreachable -> BackendUnavailable."""
    try:
        yield
    except (ConnectionError, ConnectionTimeout) as error:
        raise BackendUnavailable("Elasticsearch is unreachable") from error
    except ApiError as error:
        raise failure(error.status_code, error.body, what) from error


async def search_whole(es: AsyncElasticsearch, index: str, body: Json, what: str) -> Json:
    """One search of ``index`` (about ``what``), every shard answering or an error."""
    with elasticsearch_errors(what):
        response = await es.search(
            index=index, body=body, allow_partial_search_results=ALLOW_PARTIAL_RESULTS
        )
    return dict(response.body)


def _item_failures(response: Mapping[str, Any]) -> list[Json]:
    return [dict(answer) for answer in response["responses"] if "error" in answer]


async def multi_search(
    es: AsyncElasticsearch, searches: list[Json], what: str, index: str | None = None
) -> list[Json]:
    """The answers of a multi-search (header and body lines in ``searches``), in order, every
    item answered; the first failed item raised as ``failure`` says (a multi-search is one
    question: a part of it cannot be left out).

    A multi-search answers 200 whatever its items say, so the transport never retries it. Items
    refused for what the transport retries a whole request for (a node gone mid-search: 502, 503,
    504) are retried here the same way: on the next node, as many times."""
    retries, retry_on_status = whole_request_retries(es)
    for attempt in range(retries + 1):
        with elasticsearch_errors(what):
            response = await es.msearch(index=index, searches=searches)
        failed = _item_failures(response.body)
        if not failed:
            return [dict(answer) for answer in response.body["responses"]]
        statuses = {int(answer.get("status", 500)) for answer in failed}
        if attempt == retries or not statuses <= retry_on_status:
            break
        log.warning("multi-search items refused (%s), retrying", sorted(statuses))
    raise failure(int(failed[0].get("status", 500)), failed[0], what)


async def aliases_exist(es: AsyncElasticsearch, names: IndexNames) -> bool:
    """Every alias of the contract exists; BackendUnavailable when Elasticsearch cannot say."""
    try:
        return bool(await es.indices.exists_alias(name=",".join(names.all_aliases())))
    except (ApiError, TransportError) as error:  # unreachable, overloaded or failing alike
        raise BackendUnavailable("Elasticsearch answered with an error") from error


IndexHealth = Literal["green", "yellow", "red"]


async def served_health(es: AsyncElasticsearch, names: IndexNames) -> IndexHealth:
    """The health of the served indices (not of the whole cluster, which may hold others), as the
    node answering knows it: ``local`` so that a master election does not stall the probe while
    searches, which need no master, go on. BackendUnavailable when Elasticsearch cannot say."""
    try:
        response = await es.cluster.health(index=",".join(names.all_aliases()), local=True)
    except (ApiError, TransportError) as error:
        raise BackendUnavailable("Elasticsearch answered with an error") from error
    status: IndexHealth = response["status"]
    return status


async def publication(es: AsyncElasticsearch, names: IndexNames) -> Publication | None:
    """The record of the last finished load or update (core.publication), if one has."""
    with elasticsearch_errors(names.publication()):
        response = await es.options(ignore_status=404).get(
            index=names.publication(), id=PUBLICATION_ID
        )
    return cast(Publication, response["_source"]) if response.get("found") else None
